#include "common/provider_main.h"

#include <signal.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include <spdlog/spdlog.h>

#include "common/provider_flags.h"
#include "common/provider_registration.h"
#include "ferry/framework/config.h"
#include "ferry/framework/logging.h"
#include "ferry/framework/server.h"

namespace ferry::demo {

namespace {

constexpr int kExitStartFailed = 1;
constexpr int kExitBadUsage = 2;

// Blocked in every thread (the server's inherit the mask) and taken synchronously by
// sigwait, so shutdown runs as ordinary code rather than inside a signal handler.
sigset_t StopSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  return signals;
}

int Fail(std::string_view name, int exit_code, const Status& status) {
  std::cerr << name << ": " << status << "\n";
  if (exit_code == kExitBadUsage && status.message().starts_with("--")) {
    std::cerr << "usage: " << name << " --config <file.yaml> [--port N] [--registry URL]\n";
  }
  return exit_code;
}

std::string ListenHost(const std::string& listen) { return listen.substr(0, listen.rfind(':')); }

// The app of a provider whose services exist before the config is read.
class FixedServices final : public ProviderApp {
 public:
  explicit FixedServices(std::span<Service* const> services) : services_(services) {}
  std::span<Service* const> services() override { return services_; }

 private:
  std::span<Service* const> services_;
};

}  // namespace

int RunProvider(std::string_view name, int argc, char** argv, std::span<Service* const> services) {
  return RunProvider(name, argc, argv, [services](const ProviderSetup&, auto* app) {
    *app = std::make_unique<FixedServices>(services);
    return Status::Ok();
  });
}

int RunProvider(std::string_view name, int argc, char** argv, const ProviderAppFactory& factory) {
  const sigset_t stop_signals = StopSignals();
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  // Shells start background jobs with SIGINT ignored, and sigwait never sees an ignored signal;
  // the default action cannot fire while the signals are blocked.
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);

  ProviderFlags flags;
  if (Status s = ParseProviderFlags({argv + 1, static_cast<size_t>(argc - 1)}, &flags); !s.ok()) {
    return Fail(name, kExitBadUsage, s);
  }
  Config config;
  if (Status s = LoadConfigFile(flags.config_path, &config); !s.ok()) {
    return Fail(name, kExitBadUsage, s);
  }
  if (flags.port) {
    if (Status s = OverrideListenPort(*flags.port, &config.server.listen); !s.ok()) {
      return Fail(name, kExitBadUsage, s);
    }
  }
  if (!flags.registry_url.empty()) config.registry.url = flags.registry_url;
  if (Status s = SetLogLevel(config.log.level); !s.ok()) return Fail(name, kExitBadUsage, s);
  // SetLogLevel registered the framework's stderr logger; the provider's lines join it, so
  // log.level governs them too and stdout keeps only the ready line.
  const std::shared_ptr<spdlog::logger> log = spdlog::get("ferry");

  std::unique_ptr<ProviderApp> app;
  if (Status s = factory(ProviderSetup{config, flags.config_path}, &app); !s.ok()) {
    return Fail(name, s.code() == StatusCode::INVALID_ARGUMENT ? kExitBadUsage : kExitStartFailed,
                s);
  }
  const std::span<Service* const> services = app->services();
  Server server(config.server);
  for (Service* service : services) {
    if (Status s = server.AddService(service); !s.ok()) return Fail(name, kExitStartFailed, s);
  }
  if (Status s = server.Start(); !s.ok()) {
    app->Stop();
    return Fail(name, kExitStartFailed, s);
  }

  const std::string address =
      ListenHost(config.server.listen) + ":" + std::to_string(server.port());
  log->info("{} serving {} service(s) on {}", name, services.size(), address);

  std::unique_ptr<ProviderRegistration> registration;
  if (!config.registry.url.empty()) {
    const std::string advertised = AdvertisedAddress(config, server.port());
    if (Status s = ProviderRegistration::Publish(config, advertised, services, &registration);
        !s.ok()) {
      server.Stop();
      app->Stop();
      return Fail(name, kExitStartFailed, s);
    }
    log->info("{} registered as {} in {}", name, advertised, config.registry.url);
  }
  std::cout << name << " listening on " << address << std::endl;

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  log->info("{} stopping on {}", name, sigabbrev_np(signal_number));
  // Withdraw first, so that clients stop choosing this provider while it drains.
  if (registration) registration->Withdraw();
  server.Stop();
  app->Stop();
  return 0;
}

}  // namespace ferry::demo
