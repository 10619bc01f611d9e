#include "static_registry.h"

#include <utility>

#include "ferry/registry/path_segment.h"
#include "ferry/registry/registry_url.h"
#include "provider_record.h"

namespace ferry::registry {

Status StaticRegistry::Start(const RegistryOptions& options) {
  std::vector<std::string> addresses;
  Status status = ParseRegistryUrl(options.url, kScheme, /*allow_empty=*/true, &addresses);
  if (!status.ok()) return status;
  directory_.set_empty_protection(false);
  std::lock_guard lock(mu_);
  configured_.clear();
  for (auto& address : addresses) {
    ProviderInfo provider;
    provider.address = std::move(address);
    configured_.push_back(std::move(provider));
  }
  return Status::Ok();
}

Status StaticRegistry::Register(const std::string& service, const ProviderInfo& provider) {
  Status status = CheckPathSegment("service", service);
  std::string unused_record;
  if (status.ok())
    status = EncodeProviderRecord(provider, &unused_record);  // same rules as ZooKeeper
  if (!status.ok()) return status;
  std::lock_guard lock(mu_);
  registered_[service][provider.address] = provider;
  directory_.Update(service, ListLocked(service));
  return Status::Ok();
}

Status StaticRegistry::Unregister(const std::string& service, const std::string& address) {
  std::lock_guard lock(mu_);
  auto it = registered_.find(service);
  if (it == registered_.end() || it->second.erase(address) == 0) return Status::Ok();
  if (it->second.empty()) registered_.erase(it);
  directory_.Update(service, ListLocked(service));
  return Status::Ok();
}

uint64_t StaticRegistry::Subscribe(const std::string& service, Listener listener) {
  std::lock_guard lock(mu_);  // no Register may slip between Subscribe and the first list
  const uint64_t id = directory_.Subscribe(service, std::move(listener)).id;
  directory_.Update(service, ListLocked(service));
  return id;
}

void StaticRegistry::Unsubscribe(uint64_t subscription) { directory_.Unsubscribe(subscription); }

std::vector<ProviderInfo> StaticRegistry::Snapshot(const std::string& service) const {
  std::lock_guard lock(mu_);
  return ListLocked(service);
}

void StaticRegistry::Stop() {
  directory_.Stop();
  std::lock_guard lock(mu_);
  registered_.clear();
}

std::vector<ProviderInfo> StaticRegistry::ListLocked(const std::string& service) const {
  std::vector<ProviderInfo> providers = configured_;
  auto it = registered_.find(service);
  if (it == registered_.end()) return providers;
  for (const auto& [address, provider] : it->second) {
    bool replaced = false;
    for (auto& configured : providers) {
      if (configured.address == address) {
        configured = provider;
        replaced = true;
      }
    }
    if (!replaced) providers.push_back(provider);
  }
  return providers;
}

}  // namespace ferry::registry
