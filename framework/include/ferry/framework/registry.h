#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ferry/codec/status.h"

namespace ferry {

// The largest provider weight: what `provider.weight` accepts, what registries publish and
// read. A record with a weight of 0 or above this is skipped by readers (docs/registry.md).
inline constexpr uint32_t kMaxProviderWeight = 100000;

// One provider of one service, as published in a registry (docs/registry.md).
struct ProviderInfo {
  std::string address;    // "host:port" clients connect to
  uint32_t weight = 100;  // 1..kMaxProviderWeight
  std::string version;
  std::string group;
  std::string zone;
  int64_t start_time_ms = 0;  // Unix epoch ms when the provider started; drives warm-up
  std::vector<std::string> methods;

  friend bool operator==(const ProviderInfo&, const ProviderInfo&) = default;
};

// YAML `registry:` (docs/registry.md).
struct RegistryOptions {
  // "zookeeper://127.0.0.1:2181[,host:port...]" or "static://127.0.0.1:7001,127.0.0.1:7002".
  std::string url;
  std::string namespace_name = "default";            // namespace
  std::chrono::milliseconds session_timeout{10000};  // session_timeout_ms
  std::chrono::milliseconds connect_timeout{5000};   // connect_timeout_ms
  // What Start does when the registry server cannot be reached within connect_timeout.
  enum class Startup {
    kWait,      // "wait": start anyway and keep connecting in the background; registrations
                // are published, and lists read, once it is reachable
    kFailFast,  // "failfast": fail with UNAVAILABLE
  };
  Startup startup = Startup::kWait;  // startup
  // An update that would leave a service with no providers is ignored (and logged) while this
  // is on: the last non-empty list is kept, since an empty list is far more often a registry
  // fault than every provider really leaving.
  bool empty_protection = true;  // empty_protection
};

// Where providers announce themselves and clients find them. Implementations live in
// registry/ and are created by URL scheme through the ExtensionRegistry (kind "registry").
// All methods are thread-safe.
class Registry {
 public:
  static constexpr std::string_view kExtensionKind = "registry";
  using Listener = std::function<void(const std::vector<ProviderInfo>& providers)>;

  virtual ~Registry() = default;

  // Connects, waiting up to connect_timeout for the first session. INVALID_ARGUMENT for a bad
  // URL. A registry that cannot be reached by then is UNAVAILABLE with Startup::kFailFast;
  // with kWait it starts anyway and goes on connecting in the background (Health() tells).
  virtual Status Start(const RegistryOptions& options) = 0;

  // Publishes `provider` under `service` until Unregister or Stop; kept across session loss
  // (re-registered automatically). Accepted while the registry is unreachable, and published
  // once it is back: RegistrationsPublished() tells when.
  virtual Status Register(const std::string& service, const ProviderInfo& provider) = 0;
  virtual Status Unregister(const std::string& service, const std::string& address) = 0;

  // `listener` is called with the full current list soon after subscribing and after every
  // change, never concurrently with itself for one subscription. Returns a subscription id.
  virtual uint64_t Subscribe(const std::string& service, Listener listener) = 0;
  virtual void Unsubscribe(uint64_t subscription) = 0;

  // The cached list: what clients keep calling while the registry is unreachable.
  virtual std::vector<ProviderInfo> Snapshot(const std::string& service) const = 0;

  // OK while the registry's server is reachable (always, for a registry without one);
  // otherwise UNAVAILABLE naming the registry and why. Clients add it to the error of a call
  // that found no provider, since the list may then be missing or stale.
  virtual Status Health() const { return Status::Ok(); }

  // Whether everything registered (and not unregistered) is in the registry now, rather than
  // accepted to be published once it is reachable. A provider is ready only then.
  virtual bool RegistrationsPublished() const { return true; }

  // Unregisters what this process registered, then disconnects.
  virtual void Stop() = 0;
};

// Creates the registry named by the URL's scheme and starts it.
Status OpenRegistry(const RegistryOptions& options, std::shared_ptr<Registry>* out);

}  // namespace ferry
