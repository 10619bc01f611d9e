#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ferry/codec/status.h"
#include "storage/channel_payment.h"

namespace ferry::seckill {

// What the provider asks the channel to collect for one order.
struct ChannelPaymentRequest {
  int64_t order_no = 0;  // the merchant's order id at the channel: one payment per order
  int64_t amount_cents = 0;
  std::string currency;
  // The channel closes the payment by itself then; set before the order's deadline so that a
  // payment cannot succeed after the provider closed the order.
  int64_t expires_at_ms = 0;
  std::string description;
};

struct ChannelPayment {
  std::string payment_id;  // the channel's id
  std::string checkout;    // what the buyer's app takes to the channel to pay
};

// A notification whose signature, age and form the adapter checked.
struct PaymentNotice {
  std::string notification_id;  // unique per notification; a second delivery is a replay
  int64_t order_no = 0;
  int64_t sent_at_ms = 0;
  ChannelPaymentStatus payment;  // the payment's state as the channel says it now is
};

// One payment channel (Alipay, WeChat Pay, the simulated channel): the calls the provider makes
// to it and the check of what it sends. Safe to call from many threads. A channel that cannot
// be reached, or does not answer in time, is UNAVAILABLE or DEADLINE_EXCEEDED: the payment's
// state is then unknown, and callers keep the order as it is (never treat it as unpaid).
class PaymentChannel {
 public:
  virtual ~PaymentChannel() = default;

  // The name orders and payments record, and ChannelNotification.channel carries.
  virtual std::string_view name() const = 0;

  // Creates the order's payment, or returns the one created before (idempotent by order_no;
  // a second request for the order with another amount is FAILED_PRECONDITION).
  virtual Status CreatePayment(const ChannelPaymentRequest& request, ChannelPayment* out) = 0;
  // The order's payment as the channel knows it now.
  virtual Status QueryPayment(int64_t order_no, ChannelPaymentStatus* out) = 0;
  // Closes the order's payment so that it can no longer be paid, and says what it was at the
  // close: kClosed (or kNotFound: never created, and now it cannot be), or kSucceeded when the
  // buyer paid first (the close then changes nothing).
  virtual Status ClosePayment(int64_t order_no, ChannelPaymentStatus* out) = 0;
  // Refunds a payment in full, once per refund_id (idempotent). The answer is kRefunded when
  // the channel did it now or before, else the payment's state.
  virtual Status RefundPayment(int64_t order_no, const std::string& channel_txn_id,
                               const std::string& refund_id, ChannelPaymentStatus* out) = 0;

  // Checks a notification's signature with this channel's key and parses its payload:
  // UNAUTHENTICATED when the signature does not match, INVALID_ARGUMENT when the payload is
  // not this channel's notification. Age and replay are the caller's to judge (sent_at_ms,
  // notification_id).
  virtual Status VerifyNotification(std::string_view payload, std::string_view signature,
                                    PaymentNotice* out) const = 0;
};

}  // namespace ferry::seckill
