// The shipped Redis configs name the Redis filters: their filters start (sample secrets allowed,
// as --dev allows them) on a provider that links ferry::redis_filters.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ferry/framework/config.h"
#include "ferry/framework/server.h"
#include "redis_server.h"

namespace ferry::redis_filters::testing {
namespace {

using ::testing::HasSubstr;

// With the Redis of the file (scripts/demo.sh's port) replaced by `redis`: a test talks to no
// server it did not start.
Status StartFiltersOf(const std::string& name, const std::string& redis,
                      bool allow_sample_secrets) {
  std::ifstream file(FERRY_SOURCE_DIR "/demo-services/" + name);
  std::ostringstream read;
  read << file.rdbuf();
  std::string text = read.str();
  for (size_t at = text.find("127.0.0.1:6390"); at != std::string::npos;
       at = text.find("127.0.0.1:6390", at)) {
    text.replace(at, 14, redis);
  }
  Config config;
  const Status loaded = ParseConfig(text, name, &config);
  if (!loaded.ok()) return loaded;
  if (allow_sample_secrets) AllowSampleSecrets(&config);
  // authz names the service's methods, which this server does not serve: it would refuse to
  // start for that (each service's own shipped-config test starts it with them).
  std::erase_if(config.server.filters, [](const FilterSpec& spec) { return spec.name == "authz"; });
  config.server.listen = "127.0.0.1:0";
  Server server(config.server);
  Status status = server.Start();
  server.Stop();
  return status;
}

class ShippedRedisConfigTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { ASSERT_TRUE(redis_.Start()); }
  testsupport::RedisServer redis_;
};

TEST_P(ShippedRedisConfigTest, ItsFiltersStartInDevelopment) {
  const Status status = StartFiltersOf(GetParam(), redis_.address(), true);
  EXPECT_TRUE(status.ok()) << status;
}

TEST_P(ShippedRedisConfigTest, ItsSampleSecretsAreRefusedOtherwise) {
  EXPECT_THAT(StartFiltersOf(GetParam(), redis_.address(), false).message(),
              HasSubstr("is a sample secret"));
}

INSTANTIATE_TEST_SUITE_P(Configs, ShippedRedisConfigTest,
                         ::testing::Values("seckill/config/seckill-server-redis.yaml",
                                           "like/config/like-server-redis.yaml"),
                         [](const auto& info) {
                           return info.param.starts_with("seckill") ? std::string("Seckill")
                                                                    : std::string("Like");
                         });

}  // namespace
}  // namespace ferry::redis_filters::testing
