#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "ferry/framework/registry.h"
#include "serial_executor.h"

namespace ferry::registry {

// A registry's client side, common to every implementation: the cached provider list of each
// subscribed service, its listeners, and empty-list protection. Implementations feed it the
// lists they read; listeners run on the directory's own thread, one call at a time, so a slow
// listener never stalls the thread that talks to the registry server.
class ServiceDirectory {
 public:
  ServiceDirectory();
  ~ServiceDirectory();  // Stop()

  // While on, an update that would empty a non-empty list is ignored and logged.
  void set_empty_protection(bool on) { empty_protection_ = on; }

  struct Subscription {
    uint64_t id;
    bool first_of_service;  // the service had no subscriber before: the caller should read it
  };
  // A known list is delivered to the new listener at once (asynchronously); otherwise it gets
  // the first list that Update() supplies.
  Subscription Subscribe(const std::string& service, Registry::Listener listener);

  // After it returns the listener is not running and is never called again (unless called
  // from a listener, which cannot wait for itself). Returns the service when this was its last
  // subscriber: its cached list is dropped, so that a later subscriber starts afresh.
  std::optional<std::string> Unsubscribe(uint64_t id);

  bool HasSubscribers(const std::string& service) const;

  // Replaces `service`'s list and notifies its listeners when it changed. Ignored for a
  // service nobody subscribes to, so a late read cannot resurrect a dropped entry.
  void Update(const std::string& service, std::vector<ProviderInfo> providers);

  // The cached list; empty for a service not subscribed or not read yet.
  std::vector<ProviderInfo> Snapshot(const std::string& service) const;

  // Finishes pending notifications; no listener runs after it returns.
  void Stop();

 private:
  using ProviderList = std::shared_ptr<const std::vector<ProviderInfo>>;
  struct ServiceEntry {
    ProviderList providers;  // null until the first Update
    std::map<uint64_t, std::shared_ptr<const Registry::Listener>> listeners;
  };

  // Caller holds mu_.
  void NotifyLocked(uint64_t id, std::shared_ptr<const Registry::Listener> listener,
                    ProviderList providers);
  void Deliver(uint64_t id, const std::shared_ptr<const Registry::Listener>& listener,
               const ProviderList& providers);

  std::atomic<bool> empty_protection_{true};
  mutable std::mutex mu_;
  std::map<std::string, ServiceEntry, std::less<>> services_;
  std::map<uint64_t, std::string> service_of_;  // subscription id -> service
  uint64_t next_id_ = 1;
  // Held while a listener runs, so that Unsubscribe can wait for a call in progress.
  std::mutex delivery_mu_;
  SerialExecutor dispatcher_;
};

}  // namespace ferry::registry
