#include <gtest/gtest.h>

#include "cluster_test_util.h"
#include "test_provider.h"
#include "unreachable_address.h"

namespace ferry::cluster {
namespace {

constexpr uint32_t kUnavailable = static_cast<uint32_t>(StatusCode::UNAVAILABLE);

ClusterOptions OutlierOptions(const std::string& mode = "failover") {
  ClusterOptions options = TestOptions(mode);
  options.outlier.consecutive_failures = 3;
  options.outlier.base_ejection = 1000ms;
  options.outlier.max_ejection = 5000ms;
  options.outlier.max_ejected_ratio = 0.5;
  return options;
}

void CallEcho(demo::EchoServiceProxy& proxy, int calls) {
  for (int i = 0; i < calls; ++i) EXPECT_TRUE(proxy.Echo(EchoOf("x")).ok());
}

TEST(OutlierEjectionTest, FailingProviderIsEjectedAndProbedBackAfterItRecovers) {
  TestProvider sick, a, b;
  sick.fail_code = kUnavailable;
  demo::EchoServiceProxy proxy(
      NewTestChannel(OutlierOptions(), StaticRegistry({sick.address(), a.address(), b.address()})));
  // Failover hides the failures from the caller; the third in a row ejects the provider.
  CallEcho(proxy, 30);
  EXPECT_EQ(sick.echo_calls(), 3u);

  // Still failing when re-admitted: exactly one probe, which ejects it again for longer.
  ASSERT_TRUE(WaitFor(
      [&] {
        EXPECT_TRUE(proxy.Echo(EchoOf("x")).ok());
        return sick.echo_calls() == 4;
      },
      3s));
  CallEcho(proxy, 20);
  EXPECT_EQ(sick.echo_calls(), 4u) << "re-ejected, now for 2 s";

  // Recovered: the next probe succeeds and the provider is back in rotation.
  sick.fail_code = 0;
  ASSERT_TRUE(WaitFor(
      [&] {
        EXPECT_TRUE(proxy.Echo(EchoOf("x")).ok());
        return sick.echo_calls() >= 5;
      },
      5s));
  const uint64_t probed = sick.echo_calls();
  CallEcho(proxy, 30);
  EXPECT_GE(sick.echo_calls(), probed + 9) << "a third of the calls again";
}

TEST(OutlierEjectionTest, NeverEjectsMoreThanTheMaxRatio) {
  TestProvider a, b;
  a.fail_code = b.fail_code = kUnavailable;
  demo::EchoServiceProxy proxy(
      NewTestChannel(OutlierOptions("failfast"), StaticRegistry({a.address(), b.address()})));
  for (int i = 0; i < 40; ++i) {
    EXPECT_EQ(proxy.Echo(EchoOf("x")).status().code(), StatusCode::UNAVAILABLE);
  }
  // One of the two may be ejected; the other keeps taking every call, however sick.
  EXPECT_EQ(a.echo_calls() + b.echo_calls(), 40u);
  EXPECT_GE(std::max(a.echo_calls(), b.echo_calls()), 40u - 3u);
}

TEST(OutlierEjectionTest, ApplicationErrorsDoNotEject) {
  TestProvider picky, a;
  picky.fail_code = static_cast<uint32_t>(StatusCode::NOT_FOUND);
  demo::EchoServiceProxy proxy(
      NewTestChannel(OutlierOptions("failfast"), StaticRegistry({picky.address(), a.address()})));
  for (int i = 0; i < 40; ++i) static_cast<void>(proxy.Echo(EchoOf("x")));  // some fail
  EXPECT_EQ(picky.echo_calls(), 20u);
}

TEST(OutlierEjectionTest, UnreachableProviderIsEjected) {
  TestProvider a, b;
  ClusterOptions options = OutlierOptions();
  options.outlier.base_ejection = 5000ms;
  demo::EchoServiceProxy proxy(
      NewTestChannel(options, StaticRegistry({DeadAddress(), a.address(), b.address()})));
  CallEcho(proxy, 60);
  // Three refused connects (or fast failures in backoff) eject it; the rest is shared.
  EXPECT_EQ(a.echo_calls() + b.echo_calls(), 60u);
  EXPECT_GE(std::min(a.echo_calls(), b.echo_calls()), 25u);
}

}  // namespace
}  // namespace ferry::cluster
