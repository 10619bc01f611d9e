#include "service_directory.h"

#include <spdlog/spdlog.h>

#include <exception>
#include <utility>

#include "ferry/framework/logging.h"

namespace ferry::registry {

ServiceDirectory::ServiceDirectory() : dispatcher_("ferry-reg-notify") {}

ServiceDirectory::~ServiceDirectory() { Stop(); }

ServiceDirectory::Subscription ServiceDirectory::Subscribe(const std::string& service,
                                                           Registry::Listener listener) {
  auto shared = std::make_shared<const Registry::Listener>(std::move(listener));
  std::lock_guard lock(mu_);
  const uint64_t id = next_id_++;
  ServiceEntry& entry = services_[service];
  const bool first = entry.listeners.empty();
  entry.listeners.emplace(id, shared);
  service_of_.emplace(id, service);
  if (entry.providers) NotifyLocked(id, std::move(shared), entry.providers);
  return {id, first};
}

std::optional<std::string> ServiceDirectory::Unsubscribe(uint64_t id) {
  std::optional<std::string> emptied;
  {
    std::lock_guard lock(mu_);
    auto it = service_of_.find(id);
    if (it == service_of_.end()) return std::nullopt;
    auto entry = services_.find(it->second);
    entry->second.listeners.erase(id);
    if (entry->second.listeners.empty()) {
      emptied = entry->first;
      services_.erase(entry);
    }
    service_of_.erase(it);
  }
  // Deliver() checks the subscription under delivery_mu_, so once we get the mutex any call
  // that saw the subscription alive has returned.
  if (!dispatcher_.IsCurrentThread()) {
    std::lock_guard wait_for_running_listener(delivery_mu_);
  }
  return emptied;
}

bool ServiceDirectory::HasSubscribers(const std::string& service) const {
  std::lock_guard lock(mu_);
  return services_.contains(service);
}

void ServiceDirectory::Update(const std::string& service, std::vector<ProviderInfo> providers) {
  std::lock_guard lock(mu_);
  auto it = services_.find(service);
  if (it == services_.end()) return;
  ServiceEntry& entry = it->second;
  if (entry.providers && *entry.providers == providers) return;
  if (providers.empty() && entry.providers && !entry.providers->empty() && empty_protection_) {
    Logger().warn(
        "registry: ignoring an update that removes all {} providers of '{}'; keeping the last "
        "list (empty_protection is on)",
        entry.providers->size(), service);
    return;
  }
  entry.providers = std::make_shared<const std::vector<ProviderInfo>>(std::move(providers));
  for (const auto& [id, listener] : entry.listeners) NotifyLocked(id, listener, entry.providers);
}

std::vector<ProviderInfo> ServiceDirectory::Snapshot(const std::string& service) const {
  std::lock_guard lock(mu_);
  auto it = services_.find(service);
  if (it == services_.end() || !it->second.providers) return {};
  return *it->second.providers;
}

void ServiceDirectory::Stop() { dispatcher_.Stop(); }

void ServiceDirectory::NotifyLocked(uint64_t id, std::shared_ptr<const Registry::Listener> listener,
                                    ProviderList providers) {
  // Posting under mu_ keeps each listener's notifications in the order the lists were applied.
  dispatcher_.Post([this, id, listener = std::move(listener), providers = std::move(providers)] {
    Deliver(id, listener, providers);
  });
}

void ServiceDirectory::Deliver(uint64_t id,
                               const std::shared_ptr<const Registry::Listener>& listener,
                               const ProviderList& providers) {
  std::lock_guard delivering(delivery_mu_);
  {
    std::lock_guard lock(mu_);
    if (!service_of_.contains(id)) return;
  }
  try {
    (*listener)(*providers);
  } catch (const std::exception& e) {
    // The listener's owner is the one to handle it; other subscriptions must keep working.
    Logger().error("registry: a provider-list listener threw: {}", e.what());
  }
}

}  // namespace ferry::registry
