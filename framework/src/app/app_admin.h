#pragma once

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "app/admin_pages.h"
#include "app/method_window.h"
#include "ferry/framework/channel.h"
#include "ferry/framework/config.h"
#include "ferry/framework/service.h"
#include "thread_annotations.h"

namespace ferry::app {

// An App's admin pages (docs/http.md): /health, /ready, /metrics, /status and the rest, over
// what the app knows, and the sampler that gives the status page each method's last minute.
class AppAdmin {
 public:
  using Channels = std::map<std::string, std::shared_ptr<Channel>, std::less<>>;

  struct Inputs {
    std::string app_name;
    std::function<std::string()> address;
    const Config* config;  // outlives the admin
    std::vector<Service*> services;
    std::function<bool()> ready;
    std::function<std::vector<SlowCall>()> slow_calls;
    std::function<Channels()> channels;  // the app's named clients made so far
  };

  explicit AppAdmin(Inputs inputs);
  ~AppAdmin();  // Stop()
  AppAdmin(const AppAdmin&) = delete;
  AppAdmin& operator=(const AppAdmin&) = delete;

  // The pages' routes; they read from this admin, which must outlive the server serving them.
  std::vector<HttpRoute> Routes();

  // Samples the methods' metrics every few seconds until Stop().
  void StartSampling();
  void Stop();

  // One client as the status page shows it: a cluster's providers and their states, or a
  // direct channel's target.
  static ClientStatus DescribeClient(const std::string& name, const ClientConfig& config,
                                     const std::string& registry_url, Channel& channel);

 private:
  std::vector<ClientStatus> Clients() const;

  const Inputs inputs_;
  MethodWindow window_;
  Mutex mu_;
  std::condition_variable wake_;
  bool stopping_ FERRY_GUARDED_BY(mu_) = false;
  std::thread sampler_;
};

}  // namespace ferry::app
