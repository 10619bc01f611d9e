#pragma once

#include <memory>
#include <span>
#include <vector>

#include "service/notifier.h"
#include "service/paysim_config.h"
#include "service/paysim_service.h"

namespace ferry::paysim {

// One simulated channel: its store, payments, notifications and their delivery thread, started
// together and stopped after the server has drained.
class PaysimApp final {
 public:
  // `channel_for` reaches a merchant's NotifyPayment; by default a channel to its
  // notify_address (notify_client needs the App's clients, see server_main.cc).
  static Status Create(const PaysimConfig& config, Notifier::ChannelFor channel_for,
                       std::unique_ptr<PaysimApp>* out);
  static Notifier::ChannelFor ChannelsToNotifyAddresses(int64_t timeout_ms);
  ~PaysimApp() { Stop(); }

  std::span<Service* const> services() { return services_; }
  // Stops the deliveries; after the server has drained. Idempotent.
  void Stop();

  PaymentStore& store() { return *store_; }
  Faults& faults() { return faults_; }

 private:
  PaysimApp() = default;

  Merchants merchants_;
  Faults faults_;
  std::unique_ptr<PaymentStore> store_;
  std::unique_ptr<Notifier> notifier_;
  std::unique_ptr<Notices> notices_;
  std::unique_ptr<PaymentDesk> desk_;
  std::unique_ptr<PaysimServiceImpl> service_;
  std::vector<Service*> services_;
};

}  // namespace ferry::paysim
