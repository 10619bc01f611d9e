#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "echo.ferry.h"
#include "ferry/framework/channel.h"
#include "ferry/framework/server.h"
#include "service/echo_service.h"

namespace ferry::plugins_test {

// The echo provider, counting the calls that reach its handlers.
class CountingEchoService final : public demo::EchoServiceBase {
 public:
  Status Echo(ServerContext& context, const demo::EchoRequest& request,
              demo::EchoResponse* response) override;
  Status Delay(ServerContext& context, const demo::DelayRequest& request,
               demo::EchoResponse* response) override;
  int handled() const { return handled_.load(); }
  // ServerContext::verified_caller() of the last call handled.
  std::string last_verified_caller() const;
  // ServerContext::verified_user() of the last call handled.
  std::string last_verified_user() const;
  // ServerContext::verified_roles() of the last call handled.
  std::vector<std::string> last_verified_roles() const;

 private:
  void Count(const ServerContext& context);

  demo::EchoServiceImpl echo_;
  std::atomic<int> handled_{0};
  mutable std::mutex mu_;
  std::string last_verified_caller_;
  std::string last_verified_user_;
  std::vector<std::string> last_verified_roles_;
};

// The filter specs of a YAML `filters:` list, read by the real config loader, e.g.
// Filters("server", "[{name: auth, secret: s3cr3t}]").
std::vector<FilterSpec> Filters(const std::string& side, const std::string& yaml_list);

// An in-process echo server on an ephemeral loopback port with the given server filters, and
// proxies to it with client filters.
class FilterFixture : public ::testing::Test {
 protected:
  // `added`: filters made in code (Server::AddFilter), after the configured ones.
  void StartServer(const std::string& server_filters_yaml,
                   std::vector<std::shared_ptr<ServerFilter>> added = {});
  // The same, for a test of what Start() says: the server is left unstarted when it fails.
  Status TryStartServer(const std::string& server_filters_yaml,
                        std::vector<std::shared_ptr<ServerFilter>> added = {});
  demo::EchoServiceProxy NewProxy(const std::string& client_filters_yaml = "[]");
  void TearDown() override;

  CountingEchoService service_;
  std::unique_ptr<Server> server_;
  // server.http.trusted_proxies of the next StartServer.
  std::vector<std::string> trusted_proxies_;
  // HTTP routes the next StartServer adds beside the service.
  std::vector<HttpRoute> routes_;
};

demo::EchoRequest EchoOf(std::string payload);

}  // namespace ferry::plugins_test
