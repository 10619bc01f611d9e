// The `redis` revocations of `user_token`: a token revoked in Redis is refused by every provider
// within refresh_ms, and Redis going away leaves the last list read in force.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
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

int64_t NowS() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

CallOptions Carrying(std::string_view user, std::string_view id, int64_t issued = NowS()) {
  CallOptions options;
  options.attachments[std::string(plugins::kUserTokenAttachment)] =
      plugins::MakeUserToken("default", "u5er-s3cr3t",
                             {.user = user,
                              .audience = "echo",
                              .token_id = id,
                              .issued_unix_s = issued,
                              .expires_unix_s = issued + 600});
  return options;
}

double RefreshFailures() {
  const std::string series = "ferry_user_token_revocation_refresh_failures_total ";
  std::istringstream text(metrics::RenderText(metrics::Metrics()));
  for (std::string line; std::getline(text, line);) {
    if (line.starts_with(series)) return std::stod(line.substr(series.size()));
  }
  return 0;
}

class SharedRevocationTest : public RedisFiltersTest {
 protected:
  std::string Filters() const {
    return "[{name: user_token, secret: u5er-s3cr3t, audience: echo, revocations: {kind: redis, "
           "address: " +
           redis_address() + ", namespace: t, refresh_ms: 20}}]";
  }
};

TEST_F(SharedRevocationTest, ARevocationMadeBeforeAProviderStartsHoldsFromItsFirstCall) {
  ASSERT_EQ(Redis({"ZADD", "t:revoked:ids", std::to_string(NowS() + 600), "stolen-1"}), "1");
  demo::EchoServiceProxy a = StartProvider(Filters());
  const Status status = Echo(a, Carrying("alice", "stolen-1"));
  EXPECT_EQ(status.code(), StatusCode::UNAUTHENTICATED) << status;
  EXPECT_THAT(status.message(), HasSubstr("revoked user token (id 'stolen-1')"));
  EXPECT_TRUE(Echo(a, Carrying("alice", "other-1")).ok());
}

TEST_F(SharedRevocationTest, ATokenRevokedInRedisIsRefusedOnEveryProvider) {
  demo::EchoServiceProxy a = StartProvider(Filters());
  demo::EchoServiceProxy b = StartProvider(Filters());
  ASSERT_TRUE(Echo(a, Carrying("alice", "t-1")).ok());
  ASSERT_TRUE(Echo(b, Carrying("alice", "t-1")).ok());
  ASSERT_EQ(Redis({"ZADD", "t:revoked:ids", std::to_string(NowS() + 600), "t-1"}), "1");
  for (demo::EchoServiceProxy* proxy : {&a, &b}) {
    EXPECT_TRUE(Eventually([&] {
      return Echo(*proxy, Carrying("alice", "t-1")).code() == StatusCode::UNAUTHENTICATED;
    }));
    EXPECT_TRUE(Echo(*proxy, Carrying("alice", "t-2")).ok());
  }
}

TEST_F(SharedRevocationTest, AUsersTokensIssuedBeforeACutoffAreRefusedOnEveryProvider) {
  demo::EchoServiceProxy a = StartProvider(Filters());
  demo::EchoServiceProxy b = StartProvider(Filters());
  const int64_t cutoff = NowS() - 10;
  ASSERT_EQ(Redis({"HSET", "t:revoked:users", "mallory", std::to_string(cutoff)}), "1");
  for (demo::EchoServiceProxy* proxy : {&a, &b}) {
    EXPECT_TRUE(Eventually([&] {
      return Echo(*proxy, Carrying("mallory", "m-1", cutoff - 1)).code() ==
             StatusCode::UNAUTHENTICATED;
    }));
    EXPECT_TRUE(Echo(*proxy, Carrying("mallory", "m-2", cutoff)).ok());
  }
}

TEST_F(SharedRevocationTest, WithRedisDownTheLastListStaysInForceAndFailuresAreCounted) {
  ASSERT_EQ(Redis({"ZADD", "t:revoked:ids", std::to_string(NowS() + 600), "stolen-1"}), "1");
  demo::EchoServiceProxy a = StartProvider(Filters());
  const double before = RefreshFailures();
  redis_.Stop();
  EXPECT_TRUE(Eventually([&] { return RefreshFailures() > before; }));
  EXPECT_EQ(Echo(a, Carrying("alice", "stolen-1")).code(), StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(Echo(a, Carrying("alice", "other-1")).ok());
}

TEST_F(SharedRevocationTest, ExpiredRevocationsAreDropped) {
  ASSERT_EQ(Redis({"ZADD", "t:revoked:ids", std::to_string(NowS() - 1), "old-1"}), "1");
  demo::EchoServiceProxy a = StartProvider(Filters());
  EXPECT_TRUE(Eventually([&] { return Redis({"ZCARD", "t:revoked:ids"}) == "0"; }));
}

}  // namespace
}  // namespace ferry::redis_filters::testing
