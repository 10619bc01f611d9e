#include "service/sim_payment_channel.h"

#include <chrono>

#include "ferry/paysim/merchant_call.h"
#include "ferry/paysim/signature.h"

namespace ferry::seckill {

namespace {

int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

ChannelPaymentState StateOf(paysim::PaymentState state) {
  switch (state) {
    case paysim::PENDING:
      return ChannelPaymentState::kPending;
    case paysim::SUCCEEDED:
      return ChannelPaymentState::kSucceeded;
    case paysim::FAILED:
      return ChannelPaymentState::kFailed;
    case paysim::CLOSED:
      return ChannelPaymentState::kClosed;
    case paysim::REFUNDED:
      return ChannelPaymentState::kRefunded;
    default:
      return ChannelPaymentState::kNotFound;
  }
}

void ToStatus(const paysim::Payment& p, ChannelPaymentStatus* out) {
  *out = ChannelPaymentStatus{.state = StateOf(p.state()),
                              .channel_txn_id = p.channel_txn_id(),
                              .amount_cents = p.amount_cents(),
                              .currency = p.currency(),
                              .refund_id = p.refund_id()};
}

// Whatever leaves the payment's state unknown is one of the two codes callers treat as such:
// a channel that did not answer in time, or did not answer at all (unreachable, draining,
// overloaded, the call given up). A refusal the channel did answer keeps its code.
Status ChannelError(const Status& s) {
  switch (s.code()) {
    case StatusCode::DEADLINE_EXCEEDED:
      return Status(StatusCode::DEADLINE_EXCEEDED, "payment channel: " + s.message());
    case StatusCode::UNAVAILABLE:
    case StatusCode::DRAINING:
    case StatusCode::OVERLOADED:
    case StatusCode::CANCELLED:
    case StatusCode::RESOURCE_EXHAUSTED:
      return Status(StatusCode::UNAVAILABLE, "payment channel: " + s.ToString());
    default:
      return Status(s.code(), "payment channel: " + s.message());
  }
}

}  // namespace

Status SimPaymentChannel::Create(SimChannelOptions options, std::unique_ptr<PaymentChannel>* out) {
  ClientOptions client;
  client.target = options.address;
  client.default_timeout = std::chrono::milliseconds(options.timeout_ms);
  client.connect_timeout = std::chrono::milliseconds(std::min<int64_t>(options.timeout_ms, 1000));
  // An unreachable channel is found out per call, soon after it is back.
  client.reconnect_initial = std::chrono::milliseconds(10);
  client.reconnect_max = std::chrono::milliseconds(500);
  std::shared_ptr<Channel> channel;
  if (Status s = NewChannel(client, &channel); !s.ok()) {
    return Status(s.code(), "payment channel '" + options.name + "': " + s.message());
  }
  out->reset(new SimPaymentChannel(std::move(options), std::move(channel)));
  return Status::Ok();
}

paysim::MerchantCall SimPaymentChannel::Sign(std::string_view method,
                                             const google::protobuf::Message& body) const {
  return paysim::SignMerchantCall(method, options_.merchant_id, options_.key, WallMs(), body);
}

CallOptions SimPaymentChannel::Options() const {
  CallOptions call;
  call.timeout = std::chrono::milliseconds(options_.timeout_ms);
  return call;
}

Status SimPaymentChannel::CreatePayment(const ChannelPaymentRequest& request, ChannelPayment* out) {
  paysim::CreatePaymentRequest body;
  body.set_order_no(request.order_no);
  body.set_amount_cents(request.amount_cents);
  body.set_currency(request.currency);
  body.set_expires_at_ms(request.expires_at_ms);
  body.set_description(request.description);
  auto answer = proxy_.CreatePayment(Sign("CreatePayment", body), Options());
  if (!answer.ok()) return ChannelError(answer.status());
  out->payment_id = answer->payment().payment_id();
  out->checkout = answer->payment().checkout();
  return Status::Ok();
}

Status SimPaymentChannel::QueryPayment(int64_t order_no, ChannelPaymentStatus* out) {
  paysim::PaymentRef body;
  body.set_order_no(order_no);
  auto answer = proxy_.QueryPayment(Sign("QueryPayment", body), Options());
  if (!answer.ok()) return ChannelError(answer.status());
  ToStatus(answer->payment(), out);
  return Status::Ok();
}

Status SimPaymentChannel::ClosePayment(int64_t order_no, ChannelPaymentStatus* out) {
  paysim::PaymentRef body;
  body.set_order_no(order_no);
  auto answer = proxy_.ClosePayment(Sign("ClosePayment", body), Options());
  if (!answer.ok()) return ChannelError(answer.status());
  ToStatus(answer->payment(), out);
  return Status::Ok();
}

Status SimPaymentChannel::RefundPayment(int64_t order_no, const std::string& channel_txn_id,
                                        const std::string& refund_id, ChannelPaymentStatus* out) {
  paysim::RefundPaymentRequest body;
  body.set_order_no(order_no);
  body.set_channel_txn_id(channel_txn_id);
  body.set_refund_id(refund_id);
  auto answer = proxy_.RefundPayment(Sign("RefundPayment", body), Options());
  if (!answer.ok()) return ChannelError(answer.status());
  ToStatus(answer->payment(), out);
  return Status::Ok();
}

Status SimPaymentChannel::VerifyNotification(std::string_view payload, std::string_view signature,
                                             PaymentNotice* out) const {
  if (!paysim::SignatureMatches(options_.key, payload, signature)) {
    return Status(StatusCode::UNAUTHENTICATED,
                  "notification of channel '" + options_.name +
                      "': the signature does not match the merchant's key");
  }
  paysim::NotificationPayload notice;
  if (!notice.ParseFromArray(payload.data(), static_cast<int>(payload.size())) ||
      notice.notification_id().empty() || notice.order_no() <= 0) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "notification of channel '" + options_.name + "': not a paysim notification");
  }
  out->notification_id = notice.notification_id();
  out->order_no = notice.order_no();
  out->sent_at_ms = notice.sent_at_ms();
  out->payment = ChannelPaymentStatus{.state = StateOf(notice.state()),
                                      .channel_txn_id = notice.channel_txn_id(),
                                      .amount_cents = notice.amount_cents(),
                                      .currency = notice.currency(),
                                      .refund_id = notice.refund_id()};
  return Status::Ok();
}

}  // namespace ferry::seckill
