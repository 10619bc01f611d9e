#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "ferry/framework/registry.h"
#include "service_directory.h"

namespace ferry::registry {

// `static://host:port[,host:port...]`: every service resolves to the listed addresses, with no
// server to ask. Register/Unregister are accepted so that providers run unchanged, and add to
// or remove from this process's own lists only. An empty list (`static://`) is allowed: the
// process then sees just what it registered itself.
class StaticRegistry final : public Registry {
 public:
  static constexpr std::string_view kScheme = "static";

  Status Start(const RegistryOptions& options) override;
  Status Register(const std::string& service, const ProviderInfo& provider) override;
  Status Unregister(const std::string& service, const std::string& address) override;
  uint64_t Subscribe(const std::string& service, Listener listener) override;
  void Unsubscribe(uint64_t subscription) override;
  std::vector<ProviderInfo> Snapshot(const std::string& service) const override;
  void Stop() override;

 private:
  // The configured addresses, with this process's registrations of `service` replacing or
  // following them. Caller holds mu_.
  std::vector<ProviderInfo> ListLocked(const std::string& service) const;

  mutable std::mutex mu_;
  std::vector<ProviderInfo> configured_;
  std::map<std::string, std::map<std::string, ProviderInfo>, std::less<>> registered_;
  // Every change here is this process's own deliberate call, never a fault to protect against,
  // so empty-list protection stays off.
  ServiceDirectory directory_;
};

}  // namespace ferry::registry
