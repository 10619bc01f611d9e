#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ferry/framework/channel.h"
#include "ferry/framework/client_options.h"
#include "ferry/framework/filter.h"
#include "ferry/framework/server.h"
#include "ferry/framework/service.h"

namespace ferry::testsupport {

// A server filter made in code, for one that needs the application's own objects
// (Server::AddFilter); `name` names it in logs and errors.
struct CodeFilter {
  std::string name;
  std::shared_ptr<ServerFilter> filter;
};

struct LoopbackProviderOptions {
  std::span<Service* const> services;        // not owned: they must outlive the provider
  std::vector<FilterSpec> filters;           // configured ones (server.filters), run first
  std::vector<CodeFilter> code_filters;      // then these, in order
  size_t worker_threads = 8;                 // business_pool.threads
  std::vector<std::string> trusted_proxies;  // http.trusted_proxies
};

// The `server.filters:` of a config file (a service's shipped one, say), as a provider of these
// tests takes them, sample secrets allowed; YAML errors throw. With `redis_address`, a filter's
// Redis (its `store` or `revocations`) is that one rather than the file's: a test talks only to
// servers it started.
std::vector<FilterSpec> ServerFiltersOf(const std::string& config_path,
                                        const std::string& redis_address = "");

// A provider for the services' tests: a ferry::Server on 127.0.0.1 at a port the kernel picks,
// in this process, serving what it is given; stopped when destroyed.
class LoopbackProvider {
 public:
  LoopbackProvider() = default;
  ~LoopbackProvider() { Stop(); }
  LoopbackProvider(const LoopbackProvider&) = delete;
  LoopbackProvider& operator=(const LoopbackProvider&) = delete;

  // A fatal gtest failure when a service or filter is refused or the server cannot start.
  void Start(const LoopbackProviderOptions& options);
  // Graceful (Server::Stop); safe when not started or already stopped.
  void Stop();
  uint16_t port() const;
  std::string address() const;  // "127.0.0.1:<port>"

 private:
  std::unique_ptr<Server> server_;
};

// What the services' test clients use: calls give up after `timeout`; connecting (within 5 s)
// and reconnecting (from 10 ms, backing off to 200 ms) are quick, as a provider on loopback
// answers at once or is gone.
ClientOptions LoopbackClientOptions(std::chrono::milliseconds timeout);

// A channel to 127.0.0.1:`port` with `options` (their target replaced); nullptr, with a gtest
// failure, when it cannot be made.
std::shared_ptr<Channel> LoopbackChannel(uint16_t port, ClientOptions options = {});

}  // namespace ferry::testsupport
