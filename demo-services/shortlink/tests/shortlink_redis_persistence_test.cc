// The short-link provider's start-up check of Redis's persistence settings
// (ferry/storage/redis_persistence.h): Redis holds caches rebuilt from the database and visits
// not yet counted, so unsafe settings are warned about by default, and refused when asked.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "ferry/framework/config.h"
#include "log_capture.h"
#include "redis_server.h"
#include "service/shortlink_app.h"
#include "service/shortlink_config.h"
#include "shortlink_test_support.h"
#include "temp_dir.h"

namespace ferry::shortlink {
namespace {

using ::testing::AllOf;
using testing::Backend;
using ::testing::HasSubstr;
using testing::SharedServers;
using testsupport::RedisServer;

Status Read(const std::string& yaml, ShortLinkConfig* out) {
  Config c;
  if (Status s = ParseConfig(yaml, "shortlink.yaml", &c); !s.ok()) return s;
  return ReadServiceSection(
      c, [&](config::ConfigReader& service) { ReadShortLinkConfig(service, out); });
}

TEST(ShortLinkConfigTest, ThePersistenceCheckWarnsByDefaultAndRefusesWhenAsked) {
  ShortLinkConfig defaults;
  ASSERT_TRUE(Read("service:\n  backend: redis+mariadb\n", &defaults).ok());
  EXPECT_EQ(defaults.redis_persistence_check, "warn");
  ShortLinkConfig refuse;
  ASSERT_TRUE(Read("service:\n  redis: {persistence_check: refuse}\n", &refuse).ok());
  EXPECT_EQ(refuse.redis_persistence_check, "refuse");
  ShortLinkConfig bad;
  EXPECT_EQ(Read("service:\n  redis:\n    persistence_check: maybe\n", &bad).message(),
            "shortlink.yaml:3: service.redis.persistence_check: expected warn or refuse, got "
            "'maybe'");
}

class ShortLinkRedisPersistenceTest : public ::testing::Test {
 protected:
  ShortLinkConfig ConfigOn(const RedisServer& redis, const std::string& check) {
    ShortLinkConfig config = testing::ConfigFor(Backend::kRedisMariaDb, dir_.path());
    config.redis_port = redis.port();
    config.redis_persistence_check = check;
    return config;
  }

  testsupport::TempDir dir_;
};

TEST_F(ShortLinkRedisPersistenceTest, WarnStartsOnARedisWithoutAppendOnlyAndLogsTheKey) {
  RedisServer redis;  // no append-only file
  ASSERT_TRUE(redis.Start());
  testsupport::LogCapture log;
  std::unique_ptr<ShortLinkApp> app;
  const Status s =
      ShortLinkApp::Create(ConfigOn(redis, ShortLinkConfig().redis_persistence_check), &app);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(log.Count(spdlog::level::warn, "shortlink: Redis at " + redis.address() +
                                               ": appendonly is 'no': visits not yet counted"),
            1u);
  EXPECT_EQ(log.Count(spdlog::level::warn, "service.redis.persistence_check: warn"), 1u);
  app->Stop();
}

TEST_F(ShortLinkRedisPersistenceTest, RefuseStopsAProviderOnARedisWithoutAppendOnly) {
  RedisServer redis;
  ASSERT_TRUE(redis.Start());
  std::unique_ptr<ShortLinkApp> app;
  const Status s = ShortLinkApp::Create(ConfigOn(redis, "refuse"), &app);
  EXPECT_EQ(s.code(), StatusCode::FAILED_PRECONDITION) << s;
  EXPECT_THAT(s.message(),
              AllOf(HasSubstr("Redis at " + redis.address()), HasSubstr("appendonly is 'no'"),
                    HasSubstr("service.redis.persistence_check: refuse")));
  EXPECT_EQ(app, nullptr);
}

// The tests' shared Redis keeps an append-only file fsynced every second.
TEST_F(ShortLinkRedisPersistenceTest, AnAppendOnlyRedisPassesRefuseWithoutAWarning) {
  SharedServers::Start();
  testsupport::LogCapture log;
  std::unique_ptr<ShortLinkApp> app;
  const Status s = ShortLinkApp::Create(ConfigOn(SharedServers::redis(), "refuse"), &app);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(log.Count(spdlog::level::warn, "shortlink: Redis at"), 0u);
  app->Stop();
}

}  // namespace
}  // namespace ferry::shortlink
