#include "loopback_provider.h"

#include <yaml-cpp/yaml.h>

#include <gtest/gtest.h>

#include <utility>

namespace ferry::testsupport {

std::vector<FilterSpec> ServerFiltersOf(const std::string& config_path,
                                        const std::string& redis_address) {
  const YAML::Node file = YAML::LoadFile(config_path);
  std::vector<FilterSpec> specs;
  YAML::Node filters = file["server"]["filters"];
  for (size_t i = 0; i < filters.size(); ++i) {
    for (const char* uses_redis : {"store", "revocations"}) {
      if (!redis_address.empty() && filters[i][uses_redis] && filters[i][uses_redis]["address"]) {
        filters[i][uses_redis]["address"] = redis_address;
      }
    }
    specs.push_back({.name = filters[i]["name"].as<std::string>(),
                     .config = filters[i],
                     .source = config_path,
                     .path = "server.filters[" + std::to_string(i) + "]",
                     // Shipped configs carry sample secrets; their tests use them as they are.
                     .allow_sample_secrets = true});
  }
  return specs;
}

void LoopbackProvider::Start(const LoopbackProviderOptions& options) {
  ServerOptions server;
  server.listen = "127.0.0.1:0";
  server.io_threads = 2;
  server.worker_threads = options.worker_threads;
  // Room for the tests' crowds of concurrent calls, which a smaller queue would answer
  // OVERLOADED.
  server.queue_capacity = 8192;
  server.filters = options.filters;
  server.http.trusted_proxies = options.trusted_proxies;
  server_ = std::make_unique<Server>(server);
  for (Service* service : options.services) {
    Status s = server_->AddService(service);
    ASSERT_TRUE(s.ok()) << s;
  }
  for (const CodeFilter& filter : options.code_filters) {
    Status s = server_->AddFilter(filter.name, filter.filter);
    ASSERT_TRUE(s.ok()) << s;
  }
  Status s = server_->Start();
  ASSERT_TRUE(s.ok()) << s;
}

void LoopbackProvider::Stop() {
  if (server_) server_->Stop();
  server_.reset();
}

uint16_t LoopbackProvider::port() const { return server_ ? server_->port() : 0; }

std::string LoopbackProvider::address() const { return "127.0.0.1:" + std::to_string(port()); }

ClientOptions LoopbackClientOptions(std::chrono::milliseconds timeout) {
  using namespace std::chrono_literals;
  ClientOptions options;
  options.default_timeout = timeout;
  options.connect_timeout = 5s;
  options.reconnect_initial = 10ms;
  options.reconnect_max = 200ms;
  return options;
}

std::shared_ptr<Channel> LoopbackChannel(uint16_t port, ClientOptions options) {
  options.target = "127.0.0.1:" + std::to_string(port);
  std::shared_ptr<Channel> channel;
  Status s = NewChannel(options, &channel);
  EXPECT_TRUE(s.ok()) << s;
  return s.ok() ? channel : nullptr;
}

}  // namespace ferry::testsupport
