// The like provider's start-up check of Redis's persistence settings
// (ferry/storage/redis_persistence.h): refused by default on redis-first, where a confirmed
// change lives only in Redis until an event writer persists it; warned about on database-first,
// where Redis holds a copy of the database.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "ferry/framework/config.h"
#include "like_test_support.h"
#include "log_capture.h"
#include "redis_server.h"
#include "service/like_app.h"
#include "service/like_config.h"

namespace ferry::like {
namespace {

using ::testing::AllOf;
using testing::FreshDatabaseName;
using ::testing::HasSubstr;
using testing::RedisMariaDbConfig;
using testing::SharedServers;
using testsupport::RedisServer;

Status Read(const std::string& yaml, LikeConfig* out) {
  Config c;
  if (Status s = ParseConfig(yaml, "like.yaml", &c); !s.ok()) return s;
  return ReadServiceSection(c,
                            [&](config::ConfigReader& service) { ReadLikeConfig(service, out); });
}

// The check ReadLikeConfig gives `write_mode` when the key is absent.
std::string DefaultCheckFor(const std::string& write_mode) {
  LikeConfig read;
  const Status s =
      Read("service:\n  backend: redis+mariadb\n  write_mode: " + write_mode + "\n", &read);
  EXPECT_TRUE(s.ok()) << s;
  return read.redis_persistence_check;
}

TEST(LikeConfigTest, ThePersistenceCheckRefusesOnRedisFirstAndWarnsOnDatabaseFirst) {
  EXPECT_EQ(DefaultCheckFor("redis-first"), "refuse");
  EXPECT_EQ(DefaultCheckFor("database-first"), "warn");
  EXPECT_EQ(LikeConfig().redis_persistence_check, "refuse");  // redis-first is the default
  LikeConfig warn;
  ASSERT_TRUE(Read("service:\n  redis: {persistence_check: warn}\n", &warn).ok());
  EXPECT_EQ(warn.redis_persistence_check, "warn");
  LikeConfig refuse;
  ASSERT_TRUE(Read("service:\n  write_mode: database-first\n  redis: {persistence_check: refuse}\n",
                   &refuse)
                  .ok());
  EXPECT_EQ(refuse.redis_persistence_check, "refuse");
  LikeConfig bad;
  EXPECT_EQ(Read("service:\n  redis:\n    persistence_check: never\n", &bad).message(),
            "like.yaml:3: service.redis.persistence_check: expected warn or refuse, got 'never'");
}

class LikeRedisPersistenceTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { SharedServers::Start(); }

  static LikeConfig ConfigOn(const RedisServer& redis, const std::string& write_mode) {
    LikeConfig config = RedisMariaDbConfig(FreshDatabaseName("like_persist"));
    config.redis_port = redis.port();
    config.write_mode = write_mode;
    config.redis_persistence_check = DefaultCheckFor(write_mode);
    return config;
  }
};

TEST_F(LikeRedisPersistenceTest, RedisFirstRefusesARedisWithoutAppendOnlyNamingTheKey) {
  RedisServer redis;  // no append-only file
  ASSERT_TRUE(redis.Start());
  std::unique_ptr<LikeApp> app;
  const Status s = LikeApp::Create(ConfigOn(redis, "redis-first"), &app);
  EXPECT_EQ(s.code(), StatusCode::FAILED_PRECONDITION) << s;
  EXPECT_THAT(s.message(),
              AllOf(HasSubstr("Redis at " + redis.address()), HasSubstr("appendonly is 'no'"),
                    HasSubstr("confirmed but not yet written"),
                    HasSubstr("service.redis.persistence_check: refuse")));
  EXPECT_EQ(app, nullptr);
}

TEST_F(LikeRedisPersistenceTest, DatabaseFirstStartsOnARedisWithoutAppendOnlyAndWarns) {
  RedisServer redis;
  ASSERT_TRUE(redis.Start());
  testsupport::LogCapture log;
  std::unique_ptr<LikeApp> app;
  const Status s = LikeApp::Create(ConfigOn(redis, "database-first"), &app);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(
      log.Count(spdlog::level::warn, "like: Redis at " + redis.address() + ": appendonly is 'no'"),
      1u);
  EXPECT_EQ(log.Count(spdlog::level::warn, "service.redis.persistence_check: warn"), 1u);
  app->Stop();
}

// Request ids live in keys with a TTL, which volatile-* policies evict first: with them on,
// redis-first refuses such a policy (a retry would then find its id forgotten and act again).
TEST_F(LikeRedisPersistenceTest, RedisFirstRefusesAVolatileEvictionPolicyWhileRequestIdsAreOn) {
  RedisServer redis({.appendonly = true,
                     .extra_args = {"--maxmemory", "64mb", "--maxmemory-policy", "volatile-lru"}});
  ASSERT_TRUE(redis.Start());
  std::unique_ptr<LikeApp> app;
  LikeConfig config = ConfigOn(redis, "redis-first");
  Status s = LikeApp::Create(config, &app);
  EXPECT_EQ(s.code(), StatusCode::FAILED_PRECONDITION) << s;
  EXPECT_THAT(s.message(), AllOf(HasSubstr("volatile-lru"), HasSubstr("request ids")));
  config.request_ttl_ms = 0;  // none to lose
  s = LikeApp::Create(config, &app);
  EXPECT_TRUE(s.ok()) << s;
  if (app) app->Stop();
}

// The tests' shared Redis keeps an append-only file fsynced every second.
TEST_F(LikeRedisPersistenceTest, RedisFirstStartsOnAnAppendOnlyRedis) {
  testsupport::LogCapture log;
  std::unique_ptr<LikeApp> app;
  const Status s = LikeApp::Create(ConfigOn(SharedServers::redis(), "redis-first"), &app);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(log.Count(spdlog::level::warn, "like: Redis at"), 0u);
  app->Stop();
}

}  // namespace
}  // namespace ferry::like
