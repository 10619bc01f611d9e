#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "service/payment_channel.h"
#include "storage/order_store.h"

namespace ferry::seckill {

struct PaymentOptions {
  std::string currency = "CNY";  // of every order's amount
  // The channel's payment expires this long before the order's pay deadline (at most a quarter
  // of the pay timeout), so that it cannot be paid after the provider closes the order.
  int64_t expiry_margin_ms = 2000;
  // How long past its pay deadline an order whose channel cannot be asked stays CONFIRMING
  // (asked again every retry_ms) before it is closed anyway; money that arrives later is owed
  // back.
  int64_t confirm_window_ms = 60000;
  int64_t retry_ms = 1000;
  // Notifications sent longer ago than this (or as far in the future) are refused.
  int64_t notification_max_age_ms = 600000;
};

// What a notification did (the RPC's answer; refusals are statuses).
enum class NotifyResult { kApplied, kUnchanged, kRefundOwed };

// Where every payment is decided: the buyer only starts one; the channel's signed
// notifications and the provider's own queries and closes at the channel settle it. Closing an
// order always closes the channel's payment first, so that no payment can succeed for an order
// already closed (and when one does anyway, the money is recorded as owed back). Safe to call
// from many threads; every step is a conditional transaction of the store, so concurrent
// providers settling the same order agree.
class Payments {
 public:
  // Called for every order this closed, with the cache generation of its release.
  using ReleaseSink = std::function<void(const OrderRecord& order, int64_t cache_epoch)>;

  Payments(OrderStore* store, std::function<int64_t()> now_ms, PaymentOptions options,
           std::vector<std::unique_ptr<PaymentChannel>> channels, ReleaseSink released);

  const PaymentOptions& options() const { return options_; }
  // "alipay, sim" (for messages).
  std::string ChannelNames() const;

  // The buyer starts (or repeats) the payment of `order` (theirs) at `channel`; a payment under
  // way at another channel is closed there first. FAILED_PRECONDITION when the order is paid,
  // closed or too near its deadline; INVALID_ARGUMENT for a channel this provider does not take.
  Status Start(const OrderRecord& order, const std::string& channel, ChannelPayment* payment,
               int64_t* expires_at_ms);
  // Asks the channel about a payment under way and applies its answer; *after is the order then.
  Status Refresh(const OrderRecord& order, OrderRecord* after);
  // A channel's notification: signature, age, order, amount, then applied once.
  Status Notify(const std::string& channel, std::string_view payload, std::string_view signature,
                NotifyResult* out);
  // The buyer's cancel: an UNPAID order closes; a PAYING one closes once its channel closed the
  // payment (PAID instead when the channel says it was paid). *out as OrderStore::CloseOrder.
  Status Cancel(const OrderRecord& order, CancelResult* out);
  // The order closer's step for an open order past its deadline (OrderStore::ListDueOrders).
  Status Settle(const OrderRecord& order);
  // Asks the channels for the refunds owed, at most `limit`.
  Status RefundOwed(int limit);

 private:
  PaymentChannel* Find(const std::string& channel) const;
  // Applies the channel's word on the order's payment (no notification), releasing a unit the
  // store gave back.
  Status Apply(const OrderRecord& order, const std::string& channel,
               const ChannelPaymentStatus& payment, PaymentApplied* out);
  // Closes the order from one of `from`, counting the reason and releasing its unit.
  Status Close(const OrderRecord& order, const std::vector<OrderState>& from, int64_t due_ms,
               const std::string& reason, CancelResult* out);
  // Closes the channel's payment of a PAYING or CONFIRMING order, then the order (or applies the
  // payment the channel says was made first).
  Status CloseAtChannel(const OrderRecord& order, const std::string& reason, CancelResult* out);

  OrderStore* const store_;
  const std::function<int64_t()> now_ms_;
  const PaymentOptions options_;
  std::map<std::string, std::unique_ptr<PaymentChannel>, std::less<>> channels_;
  const ReleaseSink released_;
};

}  // namespace ferry::seckill
