#include "service/notices.h"

#include "ferry/paysim/signature.h"
#include "paysim.pb.h"
#include "service/random_ids.h"

namespace ferry::paysim {

namespace {

PaymentState StateOf(PaymentStatus status) {
  switch (status) {
    case PaymentStatus::kPending:
      return PENDING;
    case PaymentStatus::kSucceeded:
      return SUCCEEDED;
    case PaymentStatus::kFailed:
      return FAILED;
    case PaymentStatus::kClosed:
      return CLOSED;
    case PaymentStatus::kRefunded:
      return REFUNDED;
  }
  return PENDING;
}

}  // namespace

Status Notices::Queue(const PaymentRecord& payment, int64_t amount_cents,
                      std::string* notification_id) {
  const auto merchant = merchants_->find(payment.merchant_id);
  if (merchant == merchants_->end()) {
    return Status(StatusCode::FAILED_PRECONDITION,
                  "merchant '" + payment.merchant_id + "' is not configured");
  }
  const int64_t now = now_ms_();
  NotificationPayload payload;
  payload.set_notification_id(RandomId("N", 12));
  payload.set_order_no(payment.order_no);
  payload.set_sent_at_ms(now);
  payload.set_state(StateOf(payment.status));
  payload.set_channel_txn_id(payment.channel_txn_id);
  payload.set_amount_cents(amount_cents);
  payload.set_currency(payment.currency);
  payload.set_refund_id(payment.refund_id);
  DeliveryRecord delivery;
  delivery.notification_id = payload.notification_id();
  delivery.merchant_id = payment.merchant_id;
  delivery.order_no = payment.order_no;
  payload.SerializeToString(&delivery.payload);
  delivery.signature = HexHmacSha256(merchant->second.key, delivery.payload);
  if (delivery.signature.empty()) {
    return Status(StatusCode::INTERNAL, "notification: OpenSSL could not sign");
  }
  delivery.next_attempt_ms = now;
  if (Status s = store_->AddDelivery(delivery); !s.ok()) return s;
  if (notification_id != nullptr) *notification_id = delivery.notification_id;
  queued_();
  return Status::Ok();
}

Status Notices::Send(const PaymentRecord& payment, std::string* notification_id) {
  return Queue(payment, payment.amount_cents, notification_id);
}

Status Notices::SendForgedAmount(const PaymentRecord& payment, int64_t amount_cents,
                                 std::string* notification_id) {
  PaymentRecord forged = payment;
  forged.status = PaymentStatus::kSucceeded;
  forged.refund_id.clear();
  if (forged.channel_txn_id.empty()) forged.channel_txn_id = RandomId("T", 8);
  return Queue(forged, amount_cents, notification_id);
}

Status Notices::Replay(const std::string& notification_id) {
  DeliveryRecord first;
  if (Status s = store_->GetNotification(notification_id, &first); !s.ok()) return s;
  DeliveryRecord again;
  again.notification_id = first.notification_id;
  again.merchant_id = first.merchant_id;
  again.order_no = first.order_no;
  again.payload = first.payload;
  again.signature = first.signature;
  again.next_attempt_ms = now_ms_();
  if (Status s = store_->AddDelivery(again); !s.ok()) return s;
  queued_();
  return Status::Ok();
}

}  // namespace ferry::paysim
