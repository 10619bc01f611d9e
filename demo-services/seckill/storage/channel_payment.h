#pragma once

#include <cstdint>
#include <string>

namespace ferry::seckill {

// A payment at the payment channel, as the channel reports it (its answer to a query or a close,
// or a notification). The provider trusts only these for money: never the buyer.
enum class ChannelPaymentState {
  kNotFound,   // the channel never created a payment for the order
  kPending,    // created, not paid yet
  kSucceeded,  // paid: channel_txn_id, amount_cents and currency say what was taken
  kFailed,     // the buyer's attempt failed; nothing was taken (the payment may be paid later)
  kClosed,     // closed (by us, or expired at the channel): it can no longer be paid
  kRefunded,   // paid, then refunded: refund_id names the refund
};

struct ChannelPaymentStatus {
  ChannelPaymentState state = ChannelPaymentState::kNotFound;
  std::string channel_txn_id;  // kSucceeded, kRefunded
  int64_t amount_cents = 0;    // kSucceeded, kRefunded: what was taken
  std::string currency;
  std::string refund_id;  // kRefunded
};

}  // namespace ferry::seckill
