// Failover with the `auth` filters on both ends: every attempt of a call sends the one token
// signed over its one encoded body, and each provider's replay cache sees it once.

#include <gtest/gtest.h>

#include <string>

#include "cluster_test_util.h"
#include "ferry/framework/channel.h"
#include "test_provider.h"
#include "unreachable_address.h"

namespace ferry::cluster {
namespace {

constexpr uint32_t kUnavailable = static_cast<uint32_t>(StatusCode::UNAVAILABLE);

ServerOptions WithServerAuth() {
  ServerOptions options;
  options.filters = {FilterSpec::FromYaml("auth", "{secret: s3cr3t}")};
  return options;
}

ClusterOptions WithClientAuth(const std::string& mode) {
  ClusterOptions options = TestOptions(mode);
  options.client.filters = {FilterSpec::FromYaml("auth", "{secret: s3cr3t}")};
  return options;
}

int CountFailures(demo::EchoServiceProxy& proxy, int calls, Status* last_failure) {
  int failures = 0;
  for (int i = 0; i < calls; ++i) {
    const auto result = proxy.Echo(EchoOf("x"));
    if (!result.ok()) {
      ++failures;
      *last_failure = result.status();
    }
  }
  return failures;
}

// The provider that answers UNAVAILABLE admitted the token (its cache holds it); the retry
// carries the same token to the other provider, whose cache has never seen it.
TEST(AuthFailoverTest, ARetryAfterAnAnsweredFailureIsAcceptedByTheNextProvider) {
  TestProvider failing(WithServerAuth());
  TestProvider live(WithServerAuth());
  failing.fail_code = kUnavailable;
  const auto registry = StaticRegistry({failing.address(), live.address()});
  demo::EchoServiceProxy proxy(NewTestChannel(WithClientAuth("failover"), registry));
  Status last_failure;
  EXPECT_EQ(CountFailures(proxy, 20, &last_failure), 0) << last_failure;
  EXPECT_EQ(live.echo_calls(), 20u);
  EXPECT_GT(failing.echo_calls(), 0u);
}

// An attempt that never left (the provider is down) reached no cache at all.
TEST(AuthFailoverTest, ARetryOfAnUnsentAttemptIsAccepted) {
  TestProvider live(WithServerAuth());
  const auto registry = StaticRegistry({DeadAddress(), live.address()});
  demo::EchoServiceProxy proxy(NewTestChannel(WithClientAuth("failover"), registry));
  Status last_failure;
  EXPECT_EQ(CountFailures(proxy, 20, &last_failure), 0) << last_failure;
  EXPECT_EQ(live.echo_calls(), 20u);
}

// Sent once (failfast, the default of methods not idempotent), a call's token is just as good.
TEST(AuthFailoverTest, FailfastCallsAreServed) {
  TestProvider a(WithServerAuth());
  TestProvider b(WithServerAuth());
  const auto registry = StaticRegistry({a.address(), b.address()});
  demo::EchoServiceProxy proxy(NewTestChannel(WithClientAuth("failfast"), registry));
  Status last_failure;
  EXPECT_EQ(CountFailures(proxy, 20, &last_failure), 0) << last_failure;
  EXPECT_EQ(a.echo_calls() + b.echo_calls(), 20u);
}

}  // namespace
}  // namespace ferry::cluster
