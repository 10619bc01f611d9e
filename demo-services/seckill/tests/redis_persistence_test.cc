// seckill's start-up check of the Redis settings accepted reservations rely on (AOF, its fsync,
// the eviction policy; ferry/storage/redis_persistence.h), against real Redis servers started
// with each setting.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "ferry/framework/config.h"
#include "log_capture.h"
#include "redis_server.h"
#include "seckill_test_support.h"
#include "service/seckill_app.h"
#include "service/seckill_config.h"

namespace ferry::seckill {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testsupport::RedisServer;

TEST(RedisPersistenceTest, TheCheckIsWarnByDefaultAndRefuseOrWarnOnly) {
  const auto read = [](const std::string& yaml, SeckillConfig* out) {
    Config c;
    const Status parsed = ParseConfig(yaml, "seckill.yaml", &c);
    EXPECT_TRUE(parsed.ok()) << parsed;
    return ReadServiceSection(
        c, [&](config::ConfigReader& service) { ReadSeckillConfig(service, out); });
  };
  SeckillConfig defaults;
  ASSERT_TRUE(read("service:\n  backend: redis+mariadb\n", &defaults).ok());
  EXPECT_EQ(defaults.redis_persistence_check, "warn");
  SeckillConfig refuse;
  ASSERT_TRUE(read("service:\n  redis: {persistence_check: refuse}\n", &refuse).ok());
  EXPECT_EQ(refuse.redis_persistence_check, "refuse");
  SeckillConfig bad;
  EXPECT_EQ(read("service:\n  redis:\n    persistence_check: sometimes\n", &bad).message(),
            "seckill.yaml:3: service.redis.persistence_check: expected warn or refuse, got "
            "'sometimes'");
}

class SeckillAppRedisPersistenceTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { testing::SharedServers::Start(); }

  SeckillConfig ConfigOn(const RedisServer& redis, const std::string& check) {
    SeckillConfig config = testing::RedisMariaDbConfig("persistence_" + std::to_string(::getpid()) +
                                                       "_" + std::to_string(++counter_));
    config.redis_port = redis.port();
    config.redis_persistence_check = check;
    return config;
  }

  int counter_ = 0;
};

TEST_F(SeckillAppRedisPersistenceTest, RefuseStopsAProviderOnRedisWithoutAppendOnly) {
  RedisServer redis;
  ASSERT_TRUE(redis.Start());
  std::unique_ptr<SeckillApp> app;
  const Status s = SeckillApp::Create(ConfigOn(redis, "refuse"), "", &app);
  EXPECT_EQ(s.code(), StatusCode::FAILED_PRECONDITION) << s;
  EXPECT_THAT(s.message(),
              AllOf(HasSubstr("Redis at " + redis.address()), HasSubstr("appendonly is 'no'"),
                    HasSubstr("service.redis.persistence_check: refuse")));
  EXPECT_EQ(app, nullptr);
}

TEST_F(SeckillAppRedisPersistenceTest, WarnStartsTheProviderAndLogsTheRisk) {
  RedisServer redis({.extra_args = {"--maxmemory-policy", "allkeys-lfu"}});
  ASSERT_TRUE(redis.Start());
  testsupport::LogCapture log;
  std::unique_ptr<SeckillApp> app;
  const Status s = SeckillApp::Create(ConfigOn(redis, "warn"), "", &app);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(log.Count(spdlog::level::warn, "appendonly is 'no'"), 1u);
  EXPECT_EQ(log.Count(spdlog::level::warn, "maxmemory-policy is 'allkeys-lfu'"), 1u);
  app->Stop();
}

// The tests' own Redis runs as the notes require, so even refuse starts on it.
TEST_F(SeckillAppRedisPersistenceTest, TheSharedTestRedisPassesRefuse) {
  std::unique_ptr<SeckillApp> app;
  const Status s =
      SeckillApp::Create(ConfigOn(testing::SharedServers::redis(), "refuse"), "", &app);
  ASSERT_TRUE(s.ok()) << s;
  app->Stop();
}

}  // namespace
}  // namespace ferry::seckill
