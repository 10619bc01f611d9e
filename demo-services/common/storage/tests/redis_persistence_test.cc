// The start-up check of the Redis settings a service's Redis-only data relies on (AOF, its
// fsync, the eviction policy), read from real Redis servers started with each setting.

#include "ferry/storage/redis_persistence.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ferry/framework/config.h"
#include "log_capture.h"
#include "redis_server.h"

namespace ferry::storage {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testsupport::RedisServer;
using testsupport::RedisServerOptions;

constexpr std::string_view kAtStake = "things kept only in Redis";

std::vector<std::string> RisksOf(RedisServerOptions options) {
  RedisServer server(std::move(options));
  EXPECT_TRUE(server.Start());
  RedisConnectionPool pool({.host = server.host(), .port = server.port()});
  std::vector<std::string> risks;
  const Status s = RedisPersistenceRisks(pool, kAtStake, &risks);
  EXPECT_TRUE(s.ok()) << s;
  return risks;
}

BackendConfig ConfigOn(const RedisServer& redis, const std::string& check) {
  BackendConfig config;
  config.backend = "redis+mariadb";
  config.redis_port = redis.port();
  config.redis_persistence_check = check;
  return config;
}

TEST(RedisPersistenceRisksTest, AppendOnlyEverySecWithoutEvictionIsSafe) {
  EXPECT_THAT(RisksOf({.appendonly = true, .extra_args = {"--appendfsync", "everysec"}}),
              ElementsAre());
  EXPECT_THAT(
      RisksOf({.appendonly = true,
               .extra_args = {"--appendfsync", "always", "--maxmemory-policy", "volatile-lru"}}),
      ElementsAre());
}

TEST(RedisPersistenceRisksTest, NoAppendOnlyFileIsARiskToWhatIsAtStake) {
  EXPECT_THAT(RisksOf({}), ElementsAre(AllOf(HasSubstr("appendonly is 'no'"),
                                             HasSubstr("things kept only in Redis are lost"))));
}

TEST(RedisPersistenceRisksTest, AnUnsyncedAppendOnlyFileAndAllKeysEvictionAreRisks) {
  EXPECT_THAT(RisksOf({.appendonly = true,
                       .extra_args = {"--appendfsync", "no", "--maxmemory-policy", "allkeys-lru"}}),
              ElementsAre(HasSubstr("appendfsync is 'no'"),
                          HasSubstr("maxmemory-policy is 'allkeys-lru'")));
}

TEST(CheckRedisPersistenceTest, RefuseNamesRedisTheRiskAndTheKey) {
  RedisServer redis;
  ASSERT_TRUE(redis.Start());
  const Status s = CheckRedisPersistence(ConfigOn(redis, "refuse"), "svc", kAtStake);
  EXPECT_EQ(s.code(), StatusCode::FAILED_PRECONDITION) << s;
  EXPECT_THAT(s.message(),
              AllOf(HasSubstr("Redis at " + redis.address()), HasSubstr("appendonly is 'no'"),
                    HasSubstr("service.redis.persistence_check: refuse")));
}

TEST(CheckRedisPersistenceTest, WarnLogsEachRiskWithTheServiceAndTheKey) {
  RedisServer redis({.extra_args = {"--maxmemory-policy", "allkeys-lfu"}});
  ASSERT_TRUE(redis.Start());
  testsupport::LogCapture log;
  const Status s = CheckRedisPersistence(ConfigOn(redis, "warn"), "svc", kAtStake);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(
      log.Count(spdlog::level::warn, "svc: Redis at " + redis.address() + ": appendonly is 'no'"),
      1u);
  EXPECT_EQ(log.Count(spdlog::level::warn, "maxmemory-policy is 'allkeys-lfu'"), 1u);
  EXPECT_EQ(log.Count(spdlog::level::warn, "service.redis.persistence_check: warn"), 2u);
}

TEST(CheckRedisPersistenceTest, AnAppendOnlyRedisPassesRefuse) {
  RedisServer redis({.appendonly = true, .extra_args = {"--appendfsync", "everysec"}});
  ASSERT_TRUE(redis.Start());
  testsupport::LogCapture log;
  const Status s = CheckRedisPersistence(ConfigOn(redis, "refuse"), "svc", kAtStake);
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_EQ(log.Count(spdlog::level::warn, "svc: Redis at"), 0u);
}

// CONFIG renamed away, as some managed Redis services do.
TEST(CheckRedisPersistenceTest, SettingsThatCannotBeReadAreRefusedOrWarnedAbout) {
  RedisServer redis({.extra_args = {"--rename-command", "CONFIG", "\"\""}});
  ASSERT_TRUE(redis.Start());
  const Status refused = CheckRedisPersistence(ConfigOn(redis, "refuse"), "svc", kAtStake);
  EXPECT_EQ(refused.code(), StatusCode::FAILED_PRECONDITION) << refused;
  EXPECT_THAT(refused.message(), HasSubstr("cannot read its persistence settings"));
  testsupport::LogCapture log;
  EXPECT_TRUE(CheckRedisPersistence(ConfigOn(redis, "warn"), "svc", kAtStake).ok());
  EXPECT_EQ(log.Count(spdlog::level::warn, "cannot read its persistence settings"), 1u);
}

// Left to the service's own connect, which reports it (or, for a cache, lives without it).
TEST(CheckRedisPersistenceTest, AnUnreachableRedisIsLoggedAsNotChecked) {
  RedisServer redis;
  ASSERT_TRUE(redis.Start());
  BackendConfig config = ConfigOn(redis, "refuse");
  redis.Stop();
  testsupport::LogCapture log;
  EXPECT_TRUE(CheckRedisPersistence(config, "svc", kAtStake).ok());
  EXPECT_EQ(log.Count(spdlog::level::warn, "persistence settings not checked"), 1u);
}

TEST(CheckRedisPersistenceTest, TheKeyIsWarnOrRefuse) {
  const auto read = [](const std::string& yaml, BackendConfig* out) {
    Config c;
    const Status parsed = ParseConfig(yaml, "svc.yaml", &c);
    EXPECT_TRUE(parsed.ok()) << parsed;
    return ReadServiceSection(
        c, [&](config::ConfigReader& service) { ReadBackendConfig(service, out); });
  };
  BackendConfig refuse;
  ASSERT_TRUE(read("service:\n  redis: {persistence_check: refuse}\n", &refuse).ok());
  EXPECT_EQ(refuse.redis_persistence_check, "refuse");
  BackendConfig bad;
  EXPECT_EQ(read("service:\n  redis:\n    persistence_check: sometimes\n", &bad).message(),
            "svc.yaml:3: service.redis.persistence_check: expected warn or refuse, got "
            "'sometimes'");
}

}  // namespace
}  // namespace ferry::storage
