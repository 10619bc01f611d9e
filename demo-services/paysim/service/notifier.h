#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "ferry/framework/channel.h"
#include "service/merchants.h"
#include "service/paysim_config.h"
#include "storage/payment_store.h"

namespace ferry::paysim {

// The channel's outage switch (SetFaults): merchant calls answer UNAVAILABLE and deliveries
// wait while it is on.
struct Faults {
  std::atomic<bool> unavailable{false};
};

// Sends the queued deliveries on a thread of its own, so that no caller waits for a merchant:
// each through the merchant's NotifyPayment, again with backoff until the merchant answers OK
// or ALREADY_EXISTS (it has applied it, now or before), at most max_attempts times.
class Notifier {
 public:
  // The channel to a merchant's NotifyPayment; asked once per merchant, at its first delivery.
  using ChannelFor = std::function<std::shared_ptr<Channel>(const Merchant&)>;

  Notifier(PaymentStore* store, const Merchants* merchants, const Faults* faults,
           DeliveryOptions options, std::function<int64_t()> now_ms, ChannelFor channel_for);
  ~Notifier() { Stop(); }

  void Start();
  // Looks for due deliveries now rather than at the next poll.
  void Wake();
  void Stop();

 private:
  void Loop();
  // One pass over the due deliveries; true when there may be more.
  bool Pass();
  void Deliver(DeliveryRecord delivery);
  Status Send(const Merchant& merchant, const DeliveryRecord& delivery);

  PaymentStore* const store_;
  const Merchants* const merchants_;
  const Faults* const faults_;
  const DeliveryOptions options_;
  const std::function<int64_t()> now_ms_;
  const ChannelFor channel_for_;
  std::map<std::string, std::shared_ptr<Channel>> channels_;  // the loop's own

  std::mutex mutex_;
  std::condition_variable wake_;
  bool woken_ = false;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace ferry::paysim
