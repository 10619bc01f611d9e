#include "service/payment_desk.h"

#include "service/random_ids.h"

namespace ferry::paysim {

namespace {

constexpr int kMaxIdBytes = 128;

Status Invalid(const std::string& message) { return Status(StatusCode::INVALID_ARGUMENT, message); }

std::string OrderText(int64_t order_no) { return "order " + std::to_string(order_no); }

bool Open(PaymentStatus s) { return s == PaymentStatus::kPending || s == PaymentStatus::kFailed; }

// A close of an order never created leaves this: closed, with no payment id.
bool Tombstone(const PaymentRecord& p) { return p.payment_id.empty(); }

}  // namespace

void ToProto(const PaymentRecord& r, Payment* out) {
  out->Clear();
  out->set_order_no(r.order_no);
  if (Tombstone(r)) {
    out->set_state(NOT_FOUND);
    return;
  }
  out->set_payment_id(r.payment_id);
  out->set_amount_cents(r.amount_cents);
  out->set_currency(r.currency);
  out->set_expires_at_ms(r.expires_at_ms);
  out->set_channel_txn_id(r.channel_txn_id);
  out->set_refund_id(r.refund_id);
  out->set_checkout(r.checkout);
  out->set_description(r.description);
  switch (r.status) {
    case PaymentStatus::kPending:
      out->set_state(PENDING);
      break;
    case PaymentStatus::kSucceeded:
      out->set_state(SUCCEEDED);
      break;
    case PaymentStatus::kFailed:
      out->set_state(FAILED);
      break;
    case PaymentStatus::kClosed:
      out->set_state(CLOSED);
      break;
    case PaymentStatus::kRefunded:
      out->set_state(REFUNDED);
      break;
  }
}

Status PaymentDesk::Expire(PaymentRecord* payment) {
  if (!Open(payment->status) || now_ms_() < payment->expires_at_ms) return Status::Ok();
  bool changed = false;
  return store_->Transition(payment->merchant_id, payment->order_no,
                            {PaymentStatus::kPending, PaymentStatus::kFailed},
                            PaymentStatus::kClosed, "", "", &changed, payment);
}

Status PaymentDesk::Current(const std::string& merchant, int64_t order_no, PaymentRecord* out) {
  if (Status s = store_->GetPayment(merchant, order_no, out); !s.ok()) return s;
  return Expire(out);
}

Status PaymentDesk::Create(const std::string& merchant, const CreatePaymentRequest& request,
                           Payment* out) {
  if (request.order_no() <= 0) return Invalid("order_no: must be > 0");
  if (request.amount_cents() <= 0) return Invalid("amount_cents: must be > 0");
  if (request.currency().empty() || request.currency().size() > 8) {
    return Invalid("currency: must be 1..8 characters");
  }
  if (request.expires_at_ms() <= 0) return Invalid("expires_at_ms: must be set");
  if (request.description().size() > 256) return Invalid("description: at most 256 bytes");
  PaymentRecord wanted;
  wanted.merchant_id = merchant;
  wanted.order_no = request.order_no();
  wanted.payment_id = RandomId("P", 8);
  wanted.checkout = RandomId("C", 16);
  wanted.amount_cents = request.amount_cents();
  wanted.currency = request.currency();
  wanted.description = request.description();
  wanted.expires_at_ms = request.expires_at_ms();
  wanted.created_ms = now_ms_();
  PaymentRecord recorded;
  bool created = false;
  if (Status s = store_->CreatePayment(wanted, &recorded, &created); !s.ok()) return s;
  if (!created) {
    if (Tombstone(recorded)) {
      return Status(StatusCode::FAILED_PRECONDITION,
                    OrderText(request.order_no()) + " was closed before its payment was created");
    }
    if (recorded.amount_cents != wanted.amount_cents || recorded.currency != wanted.currency) {
      return Status(StatusCode::FAILED_PRECONDITION,
                    OrderText(request.order_no()) + " has a payment of " +
                        std::to_string(recorded.amount_cents) + " " + recorded.currency + ", not " +
                        std::to_string(wanted.amount_cents) + " " + wanted.currency);
    }
  }
  if (Status s = Expire(&recorded); !s.ok()) return s;
  ToProto(recorded, out);
  return Status::Ok();
}

Status PaymentDesk::Query(const std::string& merchant, int64_t order_no, Payment* out) {
  PaymentRecord payment;
  Status s = Current(merchant, order_no, &payment);
  if (s.code() == StatusCode::NOT_FOUND) {
    out->Clear();
    out->set_order_no(order_no);
    out->set_state(NOT_FOUND);
    return Status::Ok();
  }
  if (!s.ok()) return s;
  ToProto(payment, out);
  return Status::Ok();
}

Status PaymentDesk::Close(const std::string& merchant, int64_t order_no, Payment* out) {
  if (order_no <= 0) return Invalid("order_no: must be > 0");
  PaymentRecord tombstone;
  tombstone.merchant_id = merchant;
  tombstone.order_no = order_no;
  tombstone.checkout = RandomId("C", 16);
  tombstone.status = PaymentStatus::kClosed;
  tombstone.created_ms = now_ms_();
  PaymentRecord payment;
  bool created = false;
  if (Status s = store_->CreatePayment(tombstone, &payment, &created); !s.ok()) return s;
  if (!created) {
    bool changed = false;
    if (Status s = store_->Transition(merchant, order_no,
                                      {PaymentStatus::kPending, PaymentStatus::kFailed},
                                      PaymentStatus::kClosed, "", "", &changed, &payment);
        !s.ok()) {
      return s;
    }
  }
  ToProto(payment, out);
  return Status::Ok();
}

Status PaymentDesk::Refund(const std::string& merchant, const RefundPaymentRequest& request,
                           Payment* out) {
  if (request.refund_id().empty() || request.refund_id().size() > kMaxIdBytes) {
    return Invalid("refund_id: must be 1..128 bytes");
  }
  PaymentRecord payment;
  Status s = Current(merchant, request.order_no(), &payment);
  if (s.code() == StatusCode::NOT_FOUND) return Query(merchant, request.order_no(), out);
  if (!s.ok()) return s;
  if (!request.channel_txn_id().empty() && payment.channel_txn_id != request.channel_txn_id() &&
      !payment.channel_txn_id.empty()) {
    return Status(StatusCode::FAILED_PRECONDITION,
                  OrderText(request.order_no()) + " was paid by transaction " +
                      payment.channel_txn_id + ", not " + request.channel_txn_id());
  }
  bool changed = false;
  if (payment.status == PaymentStatus::kSucceeded) {
    if (s = store_->Transition(merchant, request.order_no(), {PaymentStatus::kSucceeded},
                               PaymentStatus::kRefunded, payment.channel_txn_id,
                               request.refund_id(), &changed, &payment);
        !s.ok()) {
      return s;
    }
  }
  // The channel tells the merchant as it tells of a payment: the refund's own notification.
  if (changed) {
    if (s = notices_->Send(payment); !s.ok()) return s;
  }
  ToProto(payment, out);
  return Status::Ok();
}

Status PaymentDesk::Checkout(const CheckoutRequest& request, CheckoutResponse* out) {
  if (request.outcome() != PAY && request.outcome() != FAIL) {
    return Invalid("outcome: expected PAY or FAIL");
  }
  PaymentRecord payment;
  if (Status s = store_->GetPaymentByCheckout(request.checkout(), &payment); !s.ok()) {
    return s.code() == StatusCode::NOT_FOUND ? Status(StatusCode::NOT_FOUND, "no such checkout")
                                             : s;
  }
  if (Tombstone(payment)) return Status(StatusCode::NOT_FOUND, "no such checkout");
  if (Status s = Expire(&payment); !s.ok()) return s;
  bool changed = false;
  if (request.outcome() == PAY) {
    if (Status s =
            store_->Transition(payment.merchant_id, payment.order_no,
                               {PaymentStatus::kPending, PaymentStatus::kFailed},
                               PaymentStatus::kSucceeded, RandomId("T", 8), "", &changed, &payment);
        !s.ok()) {
      return s;
    }
    if (changed) {
      if (Status s = notices_->Send(payment); !s.ok()) return s;
    }
  } else if (Status s = store_->Transition(payment.merchant_id, payment.order_no,
                                           {PaymentStatus::kPending}, PaymentStatus::kFailed, "",
                                           "", &changed, &payment);
             !s.ok()) {
    return s;
  }
  const bool paid =
      payment.status == PaymentStatus::kSucceeded || payment.status == PaymentStatus::kRefunded;
  if (!Open(payment.status) && !paid) {
    return Status(StatusCode::FAILED_PRECONDITION,
                  OrderText(payment.order_no) + ": the payment is closed");
  }
  if (request.outcome() == FAIL && paid) {
    return Status(StatusCode::FAILED_PRECONDITION,
                  OrderText(payment.order_no) + ": the payment was made already");
  }
  Payment view;
  ToProto(payment, &view);
  out->set_state(view.state());
  out->set_channel_txn_id(payment.channel_txn_id);
  return Status::Ok();
}

}  // namespace ferry::paysim
