#include "app/provider_registration.h"

#include <chrono>

#include <spdlog/spdlog.h>

#include "ferry/framework/logging.h"

namespace ferry::app {

Status ProviderRegistration::Publish(std::shared_ptr<Registry> registry,
                                     const ProviderOptions& provider, const std::string& address,
                                     std::span<Service* const> services,
                                     std::unique_ptr<ProviderRegistration>* out) {
  auto registration = std::unique_ptr<ProviderRegistration>(new ProviderRegistration());
  registration->registry_ = std::move(registry);
  registration->address_ = address;
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  for (Service* service : services) {
    ProviderInfo info{.address = address,
                      .weight = provider.weight,
                      .version = provider.version,
                      .group = provider.group,
                      .zone = provider.zone,
                      .start_time_ms = now_ms};
    for (const Service::Method& method : service->methods()) {
      info.methods.emplace_back(method.spec->method);
    }
    const std::string name(service->full_name());
    if (Status s = registration->registry_->Register(name, info); !s.ok()) return s;
    registration->services_.push_back(name);
  }
  *out = std::move(registration);
  return Status::Ok();
}

ProviderRegistration::~ProviderRegistration() { Withdraw(); }

void ProviderRegistration::Withdraw() {
  if (!registry_) return;
  for (const std::string& service : services_) {
    // Not fatal: the registry drops the record when this process's session ends.
    if (const Status s = registry_->Unregister(service, address_); !s.ok()) {
      Logger().warn("ferry app: cannot withdraw {} at {} from the registry: {}", service, address_,
                    s.ToString());
    }
  }
  registry_.reset();
}

std::string AdvertisedAddress(const Config& config, uint16_t bound_port) {
  if (!config.provider.advertise.empty()) return config.provider.advertise;
  std::string host = config.server.listen.substr(0, config.server.listen.rfind(':'));
  if (host == "0.0.0.0" || host == "[::]" || host.empty()) host = "127.0.0.1";
  return host + ":" + std::to_string(bound_port);
}

}  // namespace ferry::app
