#pragma once

// What the Redis filters' tests share: echo providers in the test process whose server filters
// name a real Redis, and clients of them.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "echo.ferry.h"
#include "ferry/framework/server.h"
#include "ferry/storage/redis_connection_pool.h"
#include "redis_server.h"
#include "service/echo_service.h"

namespace ferry::redis_filters::testing {

// Echo providers on ephemeral loopback ports sharing one Redis, started by the test.
class RedisFiltersTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // A provider with the server filters of `filters_yaml` (a YAML list); a fatal failure when it
  // cannot start.
  demo::EchoServiceProxy StartProvider(const std::string& filters_yaml);
  // The Status a provider with these filters starts with (and is stopped).
  Status StartStatus(const std::string& filters_yaml);
  // "127.0.0.1:<port>" of the test's Redis.
  std::string redis_address() const { return redis_.address(); }
  // The reply to one command, as text (integers in decimal); "FAILED:<status>" when it failed.
  std::string Redis(const std::vector<std::string>& command);

  testsupport::RedisServer redis_;
  std::unique_ptr<storage::RedisConnectionPool> pool_;

 private:
  demo::EchoServiceImpl echo_;
  std::vector<std::unique_ptr<Server>> servers_;
};

// A call's status.
Status Echo(demo::EchoServiceProxy& proxy, const CallOptions& options = {});

}  // namespace ferry::redis_filters::testing
