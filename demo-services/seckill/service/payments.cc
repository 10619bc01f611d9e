#include "service/payments.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "ferry/framework/logging.h"
#include "service/seckill_metrics.h"

namespace ferry::seckill {

namespace {

bool IsRetryable(const Status& s) {
  return s.code() == StatusCode::UNAVAILABLE || s.code() == StatusCode::DEADLINE_EXCEEDED;
}

bool Paid(const ChannelPaymentStatus& p) {
  return p.state == ChannelPaymentState::kSucceeded || p.state == ChannelPaymentState::kRefunded;
}

Status Refused(const std::string& outcome, Status status) {
  Metrics().CountNotification("refused_" + outcome);
  return status;
}

std::string OrderText(int64_t order_no) { return "order " + std::to_string(order_no); }

}  // namespace

Payments::Payments(OrderStore* store, std::function<int64_t()> now_ms, PaymentOptions options,
                   std::vector<std::unique_ptr<PaymentChannel>> channels, ReleaseSink released)
    : store_(store),
      now_ms_(std::move(now_ms)),
      options_(std::move(options)),
      released_(std::move(released)) {
  for (auto& channel : channels) {
    const std::string name(channel->name());
    channels_.emplace(name, std::move(channel));
  }
}

std::string Payments::ChannelNames() const {
  std::string names;
  for (const auto& [name, channel] : channels_) names += (names.empty() ? "" : ", ") + name;
  return names.empty() ? "none" : names;
}

PaymentChannel* Payments::Find(const std::string& channel) const {
  const auto it = channels_.find(channel);
  return it == channels_.end() ? nullptr : it->second.get();
}

Status Payments::Apply(const OrderRecord& order, const std::string& channel,
                       const ChannelPaymentStatus& payment, PaymentApplied* out) {
  if (Status s = store_->ApplyPayment(order.order_no, channel, payment, "", now_ms_(), out);
      !s.ok()) {
    return s;
  }
  if (out->closed) {
    Metrics().CountClosed("refunded");
    released_(order, out->cache_epoch);
  }
  return Status::Ok();
}

Status Payments::Close(const OrderRecord& order, const std::vector<OrderState>& from,
                       int64_t due_ms, const std::string& reason, CancelResult* out) {
  if (Status s = store_->CloseOrder(order.order_no, from, due_ms, out); !s.ok()) return s;
  if (out->cancelled) {
    Metrics().CountClosed(reason);
    released_(order, out->cache_epoch);
  }
  return Status::Ok();
}

Status Payments::CloseAtChannel(const OrderRecord& order, const std::string& reason,
                                CancelResult* out) {
  PaymentChannel* channel = Find(order.channel);
  if (channel == nullptr) {
    // A channel no longer configured cannot be asked: the order waits (and is closed at its
    // confirmation deadline) rather than be judged unpaid.
    return Status(StatusCode::UNAVAILABLE, OrderText(order.order_no) + ": payment channel '" +
                                               order.channel + "' is not configured here");
  }
  ChannelPaymentStatus closed;
  if (Status s = channel->ClosePayment(order.order_no, &closed); !s.ok()) return s;
  if (Paid(closed)) {
    // Paid before the close: the order is sold, not closed (or, refunded since, recorded so).
    PaymentApplied applied;
    if (Status s = Apply(order, order.channel, closed, &applied); !s.ok()) return s;
    *out = CancelResult{.cancelled = applied.closed, .state = applied.state};
    // Paid (or closed by the refund): settled. Money the order did not accept (another amount)
    // is owed back, and the order closes as unpaid.
    if (applied.state == OrderState::kPaid || applied.closed) return Status::Ok();
  }
  return Close(order, {OrderState::kPaying, OrderState::kConfirming}, 0, reason, out);
}

Status Payments::Start(const OrderRecord& order, const std::string& channel_name,
                       ChannelPayment* payment, int64_t* expires_at_ms) {
  PaymentChannel* channel = Find(channel_name);
  if (channel == nullptr) {
    return Status(
        StatusCode::INVALID_ARGUMENT,
        "channel: '" + channel_name + "' is not one this provider takes (" + ChannelNames() + ")");
  }
  const auto refused = [&](const std::string& why) {
    return Status(StatusCode::FAILED_PRECONDITION, OrderText(order.order_no) + " " + why);
  };
  if (order.state == OrderState::kPaid) return refused("is paid");
  if (order.state == OrderState::kCancelled) return refused("is closed");
  if (order.state == OrderState::kConfirming) return refused("is past its pay deadline");
  std::string replaced;
  if (order.state == OrderState::kPaying && order.channel != channel_name) {
    // One payment under way at a time: the other channel's is closed before this one starts,
    // so that the buyer cannot pay twice (and if the other was paid first, that payment holds).
    PaymentChannel* other = Find(order.channel);
    ChannelPaymentStatus closed;
    if (other != nullptr) {
      if (Status s = other->ClosePayment(order.order_no, &closed); !s.ok()) return s;
    }
    if (Paid(closed)) {
      PaymentApplied applied;
      if (Status s = Apply(order, order.channel, closed, &applied); !s.ok()) return s;
      return refused("was paid through " + order.channel);
    }
    replaced = order.channel;
  }
  const int64_t pay_timeout = order.pay_deadline_ms - order.created_ms;
  const int64_t margin = std::min(options_.expiry_margin_ms, pay_timeout / 4);
  const int64_t now = now_ms_();
  OrderRecord started;
  if (Status s =
          store_->BeginPayment(order.order_no, channel_name, replaced, now + margin, &started);
      !s.ok()) {
    return s;
  }
  if (started.state != OrderState::kPaying || started.channel != channel_name) {
    return refused(started.state == OrderState::kUnpaid
                       ? "is too near its pay deadline to start a payment"
                       : "changed meanwhile: it is " + std::string(OrderStateName(started.state)));
  }
  *expires_at_ms = started.pay_deadline_ms - margin;
  const ChannelPaymentRequest request{.order_no = order.order_no,
                                      .amount_cents = started.amount_cents,
                                      .currency = started.currency,
                                      .expires_at_ms = *expires_at_ms,
                                      .description = "seckill " + OrderText(order.order_no)};
  // Created after the order says PAYING: a payment the channel made but never answered for is
  // still closed at the deadline, since the closer asks the channel about every PAYING order.
  if (Status s = channel->CreatePayment(request, payment); !s.ok()) return s;
  if (started.payment_id != payment->payment_id) {
    return store_->RecordPaymentId(order.order_no, channel_name, payment->payment_id);
  }
  return Status::Ok();
}

Status Payments::Refresh(const OrderRecord& order, OrderRecord* after) {
  *after = order;
  if (order.state != OrderState::kPaying && order.state != OrderState::kConfirming) {
    return Status::Ok();
  }
  PaymentChannel* channel = Find(order.channel);
  if (channel == nullptr) return Status::Ok();
  ChannelPaymentStatus payment;
  if (Status s = channel->QueryPayment(order.order_no, &payment); !s.ok()) return s;
  PaymentApplied applied;
  if (Status s = Apply(order, order.channel, payment, &applied); !s.ok()) return s;
  return store_->GetOrder(order.order_no, after);
}

Status Payments::Notify(const std::string& channel_name, std::string_view payload,
                        std::string_view signature, NotifyResult* out) {
  PaymentChannel* channel = Find(channel_name);
  if (channel == nullptr) {
    return Refused("signature",
                   Status(StatusCode::UNAUTHENTICATED, "no payment channel '" + channel_name +
                                                           "' here (" + ChannelNames() + ")"));
  }
  PaymentNotice notice;
  if (Status s = channel->VerifyNotification(payload, signature, &notice); !s.ok()) {
    return Refused(s.code() == StatusCode::UNAUTHENTICATED ? "signature" : "malformed", s);
  }
  const int64_t now = now_ms_();
  if (notice.sent_at_ms < now - options_.notification_max_age_ms ||
      notice.sent_at_ms > now + options_.notification_max_age_ms) {
    return Refused("stale",
                   Status(StatusCode::FAILED_PRECONDITION,
                          "notification " + notice.notification_id + " was sent at " +
                              std::to_string(notice.sent_at_ms) + " ms, more than " +
                              std::to_string(options_.notification_max_age_ms) + " ms from now"));
  }
  OrderRecord order;
  if (Status s = store_->GetOrder(notice.order_no, &order); !s.ok()) {
    return s.code() == StatusCode::NOT_FOUND ? Refused("order", s) : s;
  }
  const ChannelPaymentStatus& payment = notice.payment;
  if (payment.state == ChannelPaymentState::kSucceeded &&
      (payment.amount_cents != order.amount_cents || payment.currency != order.currency)) {
    // Not recorded: what the channel's own records say decides at the order's deadline, when
    // the provider asks it.
    Logger().warn("payments: {}: notification {} says {} {} were paid, the order costs {} {}",
                  OrderText(order.order_no), notice.notification_id, payment.amount_cents,
                  payment.currency, order.amount_cents, order.currency);
    return Refused("amount", Status(StatusCode::FAILED_PRECONDITION,
                                    "notification " + notice.notification_id + ": amount " +
                                        std::to_string(payment.amount_cents) + " " +
                                        payment.currency + " is not the order's " +
                                        std::to_string(order.amount_cents) + " " + order.currency));
  }
  PaymentApplied applied;
  if (Status s = store_->ApplyPayment(order.order_no, channel_name, payment, notice.notification_id,
                                      now, &applied);
      !s.ok()) {
    return s;
  }
  if (applied.closed) {
    Metrics().CountClosed("refunded");
    released_(order, applied.cache_epoch);
  }
  switch (applied.effect) {
    case PaymentEffect::kReplayed:
      return Refused("replayed",
                     Status(StatusCode::ALREADY_EXISTS,
                            "notification " + notice.notification_id + " was applied before"));
    case PaymentEffect::kPaid:
    case PaymentEffect::kRefunded:
      Metrics().CountNotification("applied");
      *out = NotifyResult::kApplied;
      return Status::Ok();
    case PaymentEffect::kRefundOwed:
    case PaymentEffect::kAmountWrong:
      Metrics().CountNotification("refund_owed");
      *out = NotifyResult::kRefundOwed;
      return Status::Ok();
    case PaymentEffect::kUnchanged:
      break;
  }
  Metrics().CountNotification("unchanged");
  *out = NotifyResult::kUnchanged;
  return Status::Ok();
}

Status Payments::Cancel(const OrderRecord& order, CancelResult* out) {
  *out = CancelResult{.cancelled = false, .state = order.state};
  switch (order.state) {
    case OrderState::kUnpaid:
      return Close(order, {OrderState::kUnpaid}, 0, "cancelled", out);
    case OrderState::kPaying:
      return CloseAtChannel(order, "cancelled", out);
    default:
      return Status::Ok();  // paid, closed, or in the closer's hands past its deadline
  }
}

Status Payments::Settle(const OrderRecord& order) {
  const int64_t now = now_ms_();
  CancelResult closed;
  if (order.state == OrderState::kUnpaid) {
    return Close(order, {OrderState::kUnpaid}, now, "unpaid", &closed);
  }
  Status s = CloseAtChannel(order, "channel_closed", &closed);
  if (s.ok()) return s;
  // The channel did not say what became of the payment (unreachable, or refusing us: a key
  // changed, say): the unit stays held (the money may have been taken) until the confirmation
  // deadline, asking again every retry_ms meanwhile, never in a tight loop and never forever.
  if (!IsRetryable(s)) {
    Logger().warn("payments: {}: closing at channel {} failed: {}", OrderText(order.order_no),
                  order.channel, s.ToString());
  }
  const int64_t confirm_deadline = order.pay_deadline_ms + options_.confirm_window_ms;
  if (order.state == OrderState::kConfirming && now >= order.confirm_deadline_ms) {
    Logger().warn(
        "payments: {}: channel {} unanswered until the confirmation deadline ({}); "
        "closing it, and money that arrives later is owed back",
        OrderText(order.order_no), order.channel, s.ToString());
    return Close(order, {OrderState::kConfirming}, now, "unconfirmed", &closed);
  }
  return store_->AwaitConfirmation(order.order_no, now + options_.retry_ms, confirm_deadline);
}

Status Payments::RefundOwed(int limit) {
  std::vector<OwedRefund> owed;
  if (Status s = store_->ListRefundsOwed(limit, &owed); !s.ok()) return s;
  for (const OwedRefund& refund : owed) {
    PaymentChannel* channel = Find(refund.channel);
    if (channel == nullptr) continue;  // an operator records it (Refund) once made by hand
    ChannelPaymentStatus result;
    Status s = channel->RefundPayment(refund.order_no, refund.channel_txn_id,
                                      "refund-" + refund.channel_txn_id, &result);
    if (!s.ok() || result.state != ChannelPaymentState::kRefunded) {
      Logger().warn("payments: refund of {}/{} ({}): {}", refund.channel, refund.channel_txn_id,
                    OrderText(refund.order_no),
                    s.ok() ? "the channel did not refund it" : s.ToString());
      continue;
    }
    if (result.channel_txn_id.empty()) result.channel_txn_id = refund.channel_txn_id;
    OrderRecord order;
    if (s = store_->GetOrder(refund.order_no, &order); !s.ok()) return s;
    PaymentApplied applied;
    if (s = Apply(order, refund.channel, result, &applied); !s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace ferry::seckill
