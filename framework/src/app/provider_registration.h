#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ferry/framework/config.h"
#include "ferry/framework/registry.h"
#include "ferry/framework/service.h"

namespace ferry::app {

// A provider's entries in the registry: published only once the server listens, withdrawn
// before it stops, so that clients never pick an address that cannot answer.
class ProviderRegistration {
 public:
  // Registers every service at `address` in `registry`, which must outlive the registration.
  static Status Publish(std::shared_ptr<Registry> registry, const ProviderOptions& provider,
                        const std::string& address, std::span<Service* const> services,
                        std::unique_ptr<ProviderRegistration>* out);
  ~ProviderRegistration();  // Withdraw()

  // Unregisters every service. Idempotent.
  void Withdraw();

 private:
  std::shared_ptr<Registry> registry_;
  std::string address_;
  std::vector<std::string> services_;
};

// The address clients should dial: provider.advertise, or the listen host with the bound port
// (a wildcard host becomes 127.0.0.1, so set `advertise` on multi-host deployments).
std::string AdvertisedAddress(const Config& config, uint16_t bound_port);

}  // namespace ferry::app
