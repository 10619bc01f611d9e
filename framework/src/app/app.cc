#include "ferry/framework/app.h"

#include <signal.h>
#include <string.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <iostream>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "app/app_admin.h"
#include "app/app_flags.h"
#include "app/failing_channel.h"
#include "app/provider_registration.h"
#include "ferry/framework/configured_channel.h"
#include "ferry/framework/registry.h"
#include "ferry/framework/server.h"
#include "logger.h"

namespace ferry {
namespace {

constexpr int kExitStartFailed = 1;
constexpr int kExitBadUsage = 2;

// Blocked in every thread (threads started later inherit the mask) and taken synchronously by
// sigwait, so that stopping runs as ordinary code rather than inside a signal handler.
sigset_t StopSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  return signals;
}

std::string ListenHost(const std::string& listen) { return listen.substr(0, listen.rfind(':')); }

}  // namespace

class App::Impl {
 public:
  explicit Impl(std::string name) : name_(std::move(name)) {}

  void Load(int argc, char** argv) {
    const sigset_t stop_signals = StopSignals();
    pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
    // Shells start background jobs with SIGINT ignored, and sigwait never sees an ignored signal;
    // the default action cannot fire while the signals are blocked.
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    waits_for_signals_ = true;

    app::AppFlags flags;
    Status status = app::ParseAppFlags({argv + 1, static_cast<size_t>(argc - 1)}, &flags);
    if (!status.ok()) {
      usage_error_ = true;
      return Record(status);
    }
    Config config;
    if (status = LoadConfigFile(flags.config_path, &config); !status.ok()) return Record(status);
    if (flags.port) {
      if (status = app::OverrideListenPort(*flags.port, &config.server.listen); !status.ok()) {
        return Record(status);
      }
      config.document["server"]["listen"] = config.server.listen;
    }
    if (!flags.registry_url.empty()) {
      config.registry.url = flags.registry_url;
      config.document["registry"]["url"] = flags.registry_url;
    }
    if (flags.dev) AllowSampleSecrets(&config);
    Use(std::move(config));
  }

  void Use(Config config) {
    config_ = std::move(config);
    if (Status status = SetLogLevel(config_.log.level); !status.ok()) Record(status);
  }

  void Record(const Status& status) {
    MutexLock lock(mu_);
    if (status_.ok()) status_ = status;
  }

  int Fail(const Status& status) {
    Record(status);
    const Status first = this->status();
    std::cerr << name_ << ": " << first << "\n";
    if (usage_error_) {
      std::cerr << "usage: " << name_ << " --config <file.yaml> [--port N] [--registry URL]\n";
    }
    return first.code() == StatusCode::INVALID_ARGUMENT || usage_error_ ? kExitBadUsage
                                                                        : kExitStartFailed;
  }

  bool ok() const {
    MutexLock lock(mu_);
    return status_.ok();
  }
  Status status() const {
    MutexLock lock(mu_);
    return status_;
  }
  // Without mu_, which Start() holds while it registers: the readiness probe answers meanwhile.
  // A registration accepted while the registry is unreachable does not count until published.
  bool ready() const {
    if (phase_.load(std::memory_order_acquire) != Phase::kServing) return false;
    return registered_in_ == nullptr || registered_in_->RegistrationsPublished();
  }

  std::shared_ptr<Channel> ClientChannel(std::string_view name) {
    MutexLock lock(mu_);
    {
      MutexLock channels_lock(channels_mu_);
      if (auto it = channels_.find(name); it != channels_.end()) return it->second;
    }
    std::shared_ptr<Channel> channel;
    Status status = NewClient(name, &channel);
    if (!status.ok()) {
      if (status_.ok()) status_ = status;
      channel = std::make_shared<app::FailingChannel>(status);
    }
    MutexLock channels_lock(channels_mu_);
    channels_.emplace(std::string(name), channel);
    return channel;
  }

  Status Start();
  void Stop();
  int Run();

  const std::string name_;
  Config config_;
  std::vector<Service*> services_;
  std::vector<std::pair<std::string, std::shared_ptr<ServerFilter>>> filters_;
  std::vector<std::function<void()>> stop_hooks_;
  std::atomic<uint16_t> port_{0};  // read by the status page while Start() runs
  bool usage_error_ = false;
  bool waits_for_signals_ = false;

 private:
  // Under mu_.
  Status NewClient(std::string_view name, std::shared_ptr<Channel>* out) {
    const auto it = config_.clients.find(name);
    if (it == config_.clients.end()) {
      return Status(StatusCode::INVALID_ARGUMENT,
                    config_.source + ": clients." + std::string(name) +
                        ": no such client is configured (the code asks for it by this name)");
    }
    if (it->second.cluster.client.target.empty() && it->second.registry.empty()) {
      if (Status status = OpenRegistryLocked(); !status.ok()) return status;
    }
    return NewConfiguredChannel(it->second, registry_, config_.registry, out);
  }

  // Under mu_: the registry providers register in and clients find services through, opened
  // once.
  Status OpenRegistryLocked() {
    if (registry_ != nullptr || config_.registry.url.empty()) return Status::Ok();
    return OpenRegistry(config_.registry, &registry_);
  }

  // Under mu_, before the server starts: the admin pages on the server's port (or its admin
  // listener).
  void AddAdminPages() {
    admin_ = std::make_unique<app::AppAdmin>(app::AppAdmin::Inputs{
        .app_name = name_,
        .address =
            [this] {
              return ListenHost(config_.server.listen) + ":" + std::to_string(port_.load());
            },
        .config = &config_,
        .services = services_,
        .ready = [this] { return ready(); },
        .slow_calls = [this] { return server_->RecentSlowCalls(); },
        .channels =
            [this] {
              MutexLock lock(channels_mu_);
              return channels_;
            }});
    // Before Start(), which alone refuses routes (a service claiming an admin path).
    for (HttpRoute& route : admin_->Routes())
      static_cast<void>(server_->AddHttpRoute(std::move(route)));
  }

  mutable Mutex mu_;
  Status status_ FERRY_GUARDED_BY(mu_);
  std::shared_ptr<Registry> registry_;
  // Taken after mu_ when both are, and alone by the status page, which must not wait for a
  // Start() that is registering.
  mutable Mutex channels_mu_;
  std::map<std::string, std::shared_ptr<Channel>, std::less<>> channels_
      FERRY_GUARDED_BY(channels_mu_);
  // Before the server, whose routes read it: destroyed after it.
  std::unique_ptr<app::AppAdmin> admin_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<app::ProviderRegistration> registration_;
  // The registry the services were registered in: set once, before phase_ becomes kServing,
  // and kept, so that ready() may read it without mu_.
  std::shared_ptr<Registry> registered_in_;
  enum class Phase { kNew, kServing, kStopping, kStopped };
  std::atomic<Phase> phase_{Phase::kNew};  // written under mu_
  std::condition_variable stopped_;
};

Status App::Impl::Start() {
  MutexLock lock(mu_);
  if (!status_.ok()) return status_;
  if (phase_ != Phase::kNew) {
    return Status(StatusCode::FAILED_PRECONDITION, name_ + " was started already");
  }
  server_ = std::make_unique<Server>(config_.server);
  for (Service* service : services_) {
    if (Status status = server_->AddService(service); !status.ok()) return status_ = status;
  }
  for (auto& [name, filter] : filters_) {
    if (Status status = server_->AddFilter(name, filter); !status.ok()) return status_ = status;
  }
  if (config_.server.http.enabled) AddAdminPages();
  if (Status status = server_->Start(); !status.ok()) return status_ = status;
  port_ = server_->port();
  Logger().info("{} serving {} service(s) on {}:{}", name_, services_.size(),
                ListenHost(config_.server.listen), port_.load());
  if (!config_.registry.url.empty() && !services_.empty()) {
    Status status = OpenRegistryLocked();
    const std::string advertised = app::AdvertisedAddress(config_, port_.load());
    if (status.ok()) {
      status = app::ProviderRegistration::Publish(registry_, config_.provider, advertised,
                                                  services_, &registration_);
    }
    if (!status.ok()) {
      lock.Unlock();
      server_->Stop();
      lock.Lock();
      return status_ = status;
    }
    registered_in_ = registry_;
    if (registry_->RegistrationsPublished()) {
      Logger().info("{} registered as {} in {}", name_, advertised,
                    RedactedUrl(config_.registry.url));
    } else {
      Logger().warn(
          "{} serves, and is registered as {} once {} answers; /ready says 503 until then", name_,
          advertised, RedactedUrl(config_.registry.url));
    }
  }
  if (admin_ != nullptr) admin_->StartSampling();
  phase_ = Phase::kServing;
  return Status::Ok();
}

void App::Impl::Stop() {
  std::unique_ptr<app::ProviderRegistration> registration;
  {
    MutexLock lock(mu_);
    if (phase_ == Phase::kStopping) {
      while (phase_ != Phase::kStopped) stopped_.wait(lock.native());
      return;
    }
    if (phase_ == Phase::kStopped) return;
    const bool served = phase_ == Phase::kServing;
    phase_ = Phase::kStopping;
    registration = std::move(registration_);
    if (!served) {
      phase_ = Phase::kStopped;
      stopped_.notify_all();
      return;
    }
  }
  // Consumers stop choosing this provider once the registry tells them; meanwhile it serves on.
  if (registration != nullptr) {
    registration->Withdraw();
    Logger().info("{} unregistered; serving {} ms more while consumers learn of it", name_,
                  config_.server.drain_delay.count());
    std::this_thread::sleep_for(config_.server.drain_delay);
  }
  server_->Stop();
  if (admin_ != nullptr) admin_->Stop();
  for (auto hook = stop_hooks_.rbegin(); hook != stop_hooks_.rend(); ++hook) (*hook)();
  std::map<std::string, std::shared_ptr<Channel>, std::less<>> channels;
  std::shared_ptr<Registry> registry;
  {
    MutexLock lock(mu_);
    MutexLock channels_lock(channels_mu_);
    channels.swap(channels_);
    registry = std::move(registry_);
  }
  channels.clear();  // before the registry they follow
  if (registry != nullptr) registry->Stop();
  MutexLock lock(mu_);
  phase_ = Phase::kStopped;
  stopped_.notify_all();
}

int App::Impl::Run() {
  if (!ok()) return Fail(Status());
  if (Status status = Start(); !status.ok()) return Fail(status);
  std::cout << name_ << " listening on " << ListenHost(config_.server.listen) << ":" << port_.load()
            << std::endl;
  if (waits_for_signals_) {
    const sigset_t stop_signals = StopSignals();
    int signal_number = 0;
    sigwait(&stop_signals, &signal_number);
    Logger().info("{} stopping on {}", name_, sigabbrev_np(signal_number));
  }
  Stop();
  return 0;
}

App::App(std::string name, int argc, char** argv) : impl_(std::make_unique<Impl>(std::move(name))) {
  impl_->Load(argc, argv);
}

App::App(std::string name, Config config) : impl_(std::make_unique<Impl>(std::move(name))) {
  impl_->Use(std::move(config));
}

App::~App() { Stop(); }

const std::string& App::name() const { return impl_->name_; }
bool App::ok() const { return impl_->ok(); }
Status App::status() const { return impl_->status(); }
const Config& App::config() const { return impl_->config_; }

void App::ReadServiceConfig(const std::function<void(config::ConfigReader& service)>& read) {
  if (Status status = ReadServiceSection(impl_->config_, read); !status.ok()) {
    impl_->Record(status);
  }
}

void App::AddService(Service* service) { impl_->services_.push_back(service); }

void App::AddServerFilter(std::string name, std::shared_ptr<ServerFilter> filter) {
  impl_->filters_.emplace_back(std::move(name), std::move(filter));
}

std::shared_ptr<Channel> App::ClientChannel(std::string_view name) {
  return impl_->ClientChannel(name);
}

void App::OnStop(std::function<void()> hook) { impl_->stop_hooks_.push_back(std::move(hook)); }

int App::Run() { return impl_->Run(); }
Status App::Start() { return impl_->Start(); }
uint16_t App::port() const { return impl_->port_.load(); }
bool App::ready() const { return impl_->ready(); }
void App::Stop() { impl_->Stop(); }
int App::Fail(const Status& status) { return impl_->Fail(status); }

}  // namespace ferry
