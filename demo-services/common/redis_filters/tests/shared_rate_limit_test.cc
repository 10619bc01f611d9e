// The `redis` store of the `ratelimit` filter: providers sharing one Redis together allow a
// limit's rate, not each of them; with Redis gone, each falls back to its own bucket.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "eventually.h"
#include "ferry/framework/metrics.h"
#include "ferry/plugins/user_token.h"
#include "redis_filters_fixture.h"

namespace ferry::redis_filters::testing {
namespace {

using ::testing::HasSubstr;
using testsupport::Eventually;

CallOptions ActingFor(std::string_view user) {
  const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  CallOptions options;
  options.attachments[std::string(plugins::kUserTokenAttachment)] =
      plugins::MakeUserToken("default", "u5er-s3cr3t",
                             {.user = user,
                              .audience = "echo",
                              .token_id = "t",
                              .issued_unix_s = now,
                              .expires_unix_s = now + 600});
  return options;
}

double FallbacksToLocal() {
  const std::string series = "ferry_ratelimit_store_unavailable_total{on_unavailable=\"local\"} ";
  std::istringstream text(metrics::RenderText(metrics::Metrics()));
  for (std::string line; std::getline(text, line);) {
    if (line.starts_with(series)) return std::stod(line.substr(series.size()));
  }
  return 0;
}

// Calls alternately to each provider, `rounds` each; how many were served.
int ServedAlternately(demo::EchoServiceProxy& a, demo::EchoServiceProxy& b, int rounds,
                      Status* refusal) {
  int served = 0;
  for (int i = 0; i < rounds; ++i) {
    for (demo::EchoServiceProxy* proxy : {&a, &b}) {
      const Status status = Echo(*proxy);
      if (status.ok()) {
        ++served;
      } else {
        *refusal = status;
      }
    }
  }
  return served;
}

class SharedRateLimitTest : public RedisFiltersTest {
 protected:
  // A limit that does not refill within a test: what is served is the burst.
  std::string Filters(const std::string& store_extra = "") const {
    return "[{name: ratelimit, store: {kind: redis, address: " + redis_address() +
           ", namespace: t, retry_after_ms: 0" + store_extra +
           "}, per_method: {rate: 0.001, burst: 5}}]";
  }
};

TEST_F(SharedRateLimitTest, TwoProvidersTogetherAllowTheConfiguredBurstNotTwiceIt) {
  demo::EchoServiceProxy a = StartProvider(Filters());
  demo::EchoServiceProxy b = StartProvider(Filters());
  Status refusal;
  EXPECT_EQ(ServedAlternately(a, b, 10, &refusal), 5);
  EXPECT_EQ(refusal.code(), StatusCode::RESOURCE_EXHAUSTED) << refusal;
  EXPECT_THAT(refusal.message(),
              HasSubstr("rate limit of method ferry.demo.EchoService/Echo exceeded (0.001/s, "
                        "burst 5)"));
}

TEST_F(SharedRateLimitTest, AUsersBucketIsSharedByEveryProviderAndOtherUsersHaveTheirOwn) {
  const std::string filters =
      "[{name: user_token, secret: u5er-s3cr3t}, {name: ratelimit, store: {kind: redis, address: " +
      redis_address() + ", namespace: t}, per_user: {rate: 0.001, burst: 3}}]";
  demo::EchoServiceProxy a = StartProvider(filters);
  demo::EchoServiceProxy b = StartProvider(filters);
  int alice = 0;
  int bob = 0;
  Status refusal;
  for (int i = 0; i < 5; ++i) {
    for (demo::EchoServiceProxy* proxy : {&a, &b}) {
      alice += Echo(*proxy, ActingFor("alice")).ok();
      const Status status = Echo(*proxy, ActingFor("bob"));
      bob += status.ok();
      if (!status.ok()) refusal = status;
    }
  }
  EXPECT_EQ(alice, 3);
  EXPECT_EQ(bob, 3);
  EXPECT_THAT(refusal.message(), HasSubstr("rate limit of user 'bob' exceeded (0.001/s, burst 3)"));
  EXPECT_EQ(Redis({"EXISTS", "t:ratelimit:{per_user:alice}"}), "1");
}

TEST_F(SharedRateLimitTest, AnEmptySharedBucketRefillsAtItsRate) {
  demo::EchoServiceProxy a =
      StartProvider("[{name: ratelimit, store: {kind: redis, address: " + redis_address() +
                    ", namespace: t}, per_method: {rate: 20, burst: 1}}]");
  ASSERT_TRUE(Echo(a).ok());
  EXPECT_EQ(Echo(a).code(), StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_TRUE(Eventually([&] { return Echo(a).ok(); }, std::chrono::seconds(5),
                         std::chrono::milliseconds(10)));
}

TEST_F(SharedRateLimitTest, UnsharedTheyAllowTwiceIt) {
  const std::string local = "[{name: ratelimit, per_method: {rate: 0.001, burst: 5}}]";
  demo::EchoServiceProxy a = StartProvider(local);
  demo::EchoServiceProxy b = StartProvider(local);
  Status refusal;
  EXPECT_EQ(ServedAlternately(a, b, 10, &refusal), 10);
}

TEST_F(SharedRateLimitTest, OtherNamespacesHaveTheirOwnBuckets) {
  demo::EchoServiceProxy a = StartProvider(Filters());
  demo::EchoServiceProxy b =
      StartProvider("[{name: ratelimit, store: {kind: redis, address: " + redis_address() +
                    ", namespace: other}, per_method: {rate: 0.001, burst: 5}}]");
  Status refusal;
  EXPECT_EQ(ServedAlternately(a, b, 10, &refusal), 10);
}

TEST_F(SharedRateLimitTest, ABucketIsOneKeyThatExpiresWhenItWouldBeFullAgain) {
  demo::EchoServiceProxy a =
      StartProvider("[{name: ratelimit, store: {kind: redis, address: " + redis_address() +
                    ", namespace: t}, per_method: {rate: 10, burst: 5}}]");
  ASSERT_TRUE(Echo(a).ok());
  ASSERT_TRUE(Echo(a).ok());
  const std::string key = "t:ratelimit:{per_method:ferry.demo.EchoService/Echo}";
  EXPECT_EQ(Redis({"EXISTS", key}), "1");
  // Two tokens at 10/s come back within 200 ms (+1 ms of rounding).
  const int64_t ttl_ms = std::stoll(Redis({"PTTL", key}));
  EXPECT_GT(ttl_ms, 0);
  EXPECT_LE(ttl_ms, 201);
}

TEST_F(SharedRateLimitTest, WithRedisDownEachProviderFallsBackToItsOwnBucketAndCountsIt) {
  demo::EchoServiceProxy a = StartProvider(Filters());
  demo::EchoServiceProxy b = StartProvider(Filters());
  // Two tokens taken in Redis; the local buckets are still full.
  ASSERT_TRUE(Echo(a).ok());
  ASSERT_TRUE(Echo(b).ok());
  redis_.Stop();
  const double before = FallbacksToLocal();
  Status refusal;
  // Each provider now allows its own burst: a limiter outage does not refuse the service.
  EXPECT_EQ(ServedAlternately(a, b, 10, &refusal), 10);
  EXPECT_EQ(refusal.code(), StatusCode::RESOURCE_EXHAUSTED) << refusal;
  EXPECT_EQ(FallbacksToLocal() - before, 20);
}

TEST_F(SharedRateLimitTest, WhenRedisComesBackTheLimitIsSharedAgain) {
  demo::EchoServiceProxy a = StartProvider(Filters());
  demo::EchoServiceProxy b = StartProvider(Filters());
  redis_.Stop();
  ASSERT_TRUE(Echo(a).ok());  // from a's own bucket
  ASSERT_TRUE(redis_.Start());
  const double before = FallbacksToLocal();
  Status refusal;
  // An empty Redis: a fresh shared bucket of five.
  EXPECT_EQ(ServedAlternately(a, b, 10, &refusal), 5);
  EXPECT_EQ(FallbacksToLocal(), before);
}

TEST_F(SharedRateLimitTest, OnUnavailableRefuseAnswersUnavailableWhileRedisIsDown) {
  demo::EchoServiceProxy a = StartProvider(Filters(", on_unavailable: refuse"));
  redis_.Stop();
  const Status status = Echo(a);
  EXPECT_EQ(status.code(), StatusCode::UNAVAILABLE) << status;
}

TEST_F(SharedRateLimitTest, StoreMistakesNameTheKey) {
  EXPECT_THAT(StartStatus("[{name: ratelimit, store: {kind: redis, namespace: t}, per_user: "
                          "{rate: 1}}]")
                  .message(),
              HasSubstr("test.yaml:3: server.filters[0].store.address: expected host:port"));
  EXPECT_THAT(StartStatus("[{name: ratelimit, store: {kind: redis, address: " + redis_address() +
                          "}, per_user: {rate: 1}}]")
                  .message(),
              HasSubstr("server.filters[0].store.namespace: must be set"));
}

}  // namespace
}  // namespace ferry::redis_filters::testing
