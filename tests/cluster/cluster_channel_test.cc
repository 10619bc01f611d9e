#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

#include "cluster_test_util.h"
#include "ferry/codegen/unary_call.h"
#include "ferry/framework/cluster_channel.h"
#include "test_provider.h"

namespace ferry::cluster {
namespace {

Status Create(const ClusterOptions& options) {
  std::shared_ptr<Channel> channel;
  return NewClusterChannel(options, StaticRegistry({"127.0.0.1:1"}), &channel);
}

TEST(ClusterChannelTest, RoundRobinSpreadsCallsEvenlyOverEveryProvider) {
  TestProvider a, b, c;
  auto channel =
      NewTestChannel(TestOptions(), StaticRegistry({a.address(), b.address(), c.address()}));
  demo::EchoServiceProxy proxy(channel);
  for (int i = 0; i < 300; ++i) {
    auto result = proxy.Echo(EchoOf("p" + std::to_string(i)));
    ASSERT_TRUE(result.ok()) << result.status();
    ASSERT_EQ(result->payload(), "p" + std::to_string(i));
  }
  EXPECT_EQ(a.echo_calls(), 100u);
  EXPECT_EQ(b.echo_calls(), 100u);
  EXPECT_EQ(c.echo_calls(), 100u);
}

TEST(ClusterChannelTest, ConcurrentAsyncCallsAllCompleteOnce) {
  TestProvider a, b;
  auto channel =
      NewTestChannel(TestOptions("failover"), StaticRegistry({a.address(), b.address()}));
  demo::EchoServiceProxy proxy(channel);
  constexpr int kThreads = 4;
  constexpr int kCallsPerThread = 500;
  std::atomic<int> ok{0};
  std::atomic<int> completions{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kCallsPerThread; ++i) {
        proxy.EchoWithCallback(EchoOf("x"), [&](Result<demo::EchoResponse> result) {
          if (result.ok()) ok.fetch_add(1);
          completions.fetch_add(1);
        });
      }
    });
  }
  for (auto& thread : threads) thread.join();
  ASSERT_TRUE(WaitFor([&] { return completions.load() == kThreads * kCallsPerThread; }, 10s));
  EXPECT_EQ(ok.load(), kThreads * kCallsPerThread);
  EXPECT_EQ(a.echo_calls() + b.echo_calls(), uint64_t{kThreads * kCallsPerThread});
}

TEST(ClusterChannelTest, InvalidOptionsAreRejectedNamingTheOption) {
  ClusterOptions options = TestOptions();
  options.loadbalance.name = "fastest_guess";
  Status status = Create(options);
  EXPECT_EQ(status.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.message().find("fastest_guess"), std::string::npos) << status;
  EXPECT_NE(status.message().find("round_robin"), std::string::npos) << status;

  options = TestOptions("retry_forever");
  status = Create(options);
  EXPECT_EQ(status.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.message().find("retry_forever"), std::string::npos) << status;

  options = TestOptions("failover");
  options.fault_tolerance.max_attempts = 0;
  status = Create(options);
  EXPECT_EQ(status.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.message().find("max_attempts"), std::string::npos) << status;

  for (double ratio : {-0.1, 1.5}) {
    options = TestOptions("failover");
    options.fault_tolerance.retry_budget_ratio = ratio;
    status = Create(options);
    EXPECT_EQ(status.code(), StatusCode::INVALID_ARGUMENT) << ratio;
    EXPECT_NE(status.message().find("retry_budget.ratio"), std::string::npos) << status;
  }

  options = TestOptions();
  options.method_fault_tolerance["Echo"].mode = "sometimes";
  status = Create(options);
  EXPECT_EQ(status.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.message().find("methods.Echo.fault_tolerance.mode"), std::string::npos)
      << status;

  options = TestOptions();
  options.outlier.max_ejected_ratio = 2;
  EXPECT_EQ(Create(options).code(), StatusCode::INVALID_ARGUMENT);

  options = TestOptions();
  options.service.clear();
  EXPECT_EQ(Create(options).code(), StatusCode::INVALID_ARGUMENT);

  options = TestOptions();
  options.client.serializer = "xml";
  EXPECT_EQ(Create(options).code(), StatusCode::INVALID_ARGUMENT);

  std::shared_ptr<Channel> channel;
  EXPECT_EQ(NewClusterChannel(TestOptions(), nullptr, &channel).code(),
            StatusCode::INVALID_ARGUMENT);
}

TEST(ClusterChannelTest, NoProviderFailsAtOnceWithUnavailable) {
  auto channel = NewTestChannel(TestOptions("failover"), StaticRegistry({}));
  demo::EchoServiceProxy proxy(channel);
  const auto start = Clock::now();
  auto result = proxy.Echo(EchoOf("x"));
  EXPECT_LT(Clock::now() - start, 1s);
  EXPECT_EQ(result.status().code(), StatusCode::UNAVAILABLE);
  EXPECT_NE(result.status().message().find(std::string(kEchoService)), std::string::npos)
      << result.status();
}

TEST(ClusterChannelTest, FollowsProvidersJoiningAndLeaving) {
  TestProvider a, b;
  auto registry = StaticRegistry({});
  ASSERT_TRUE(
      registry->Register(std::string(kEchoService), ProviderInfo{.address = a.address()}).ok());
  auto channel = NewTestChannel(TestOptions(), registry);
  demo::EchoServiceProxy proxy(channel);
  ASSERT_TRUE(proxy.Echo(EchoOf("x")).ok());
  EXPECT_EQ(a.echo_calls(), 1u);

  ASSERT_TRUE(
      registry->Register(std::string(kEchoService), ProviderInfo{.address = b.address()}).ok());
  EXPECT_TRUE(WaitFor(
      [&] {
        EXPECT_TRUE(proxy.Echo(EchoOf("x")).ok());
        return b.echo_calls() > 0;
      },
      2s));

  ASSERT_TRUE(registry->Unregister(std::string(kEchoService), a.address()).ok());
  // Once the update is applied, every call goes to b.
  ASSERT_TRUE(WaitFor(
      [&] {
        const uint64_t before = a.echo_calls();
        for (int i = 0; i < 10; ++i) EXPECT_TRUE(proxy.Echo(EchoOf("x")).ok());
        return a.echo_calls() == before;
      },
      2s));
}

TEST(ClusterChannelTest, RemovedProviderFinishesItsCallsInFlight) {
  TestProvider a;
  auto registry = StaticRegistry({});
  ASSERT_TRUE(
      registry->Register(std::string(kEchoService), ProviderInfo{.address = a.address()}).ok());
  auto channel = NewTestChannel(TestOptions(), registry);
  demo::EchoServiceProxy proxy(channel);
  auto slow = proxy.DelayAsync(DelayOf(300));
  ASSERT_TRUE(WaitFor([&] { return a.delay_calls() == 1; }, 2s));
  ASSERT_TRUE(registry->Unregister(std::string(kEchoService), a.address()).ok());
  auto result = slow.get();
  EXPECT_TRUE(result.ok()) << result.status();
  // And a new call finds nobody.
  EXPECT_TRUE(WaitFor([&] { return !proxy.Echo(EchoOf("x")).ok(); }, 2s));
}

TEST(ClusterChannelTest, DestroyingTheChannelCancelsPendingCalls) {
  TestProvider a;
  auto channel = NewTestChannel(TestOptions(), StaticRegistry({a.address()}));
  std::promise<Status> finished;
  {
    demo::EchoServiceProxy proxy(channel);
    proxy.DelayWithCallback(DelayOf(1000), [&](Result<demo::EchoResponse> result) {
      finished.set_value(result.status());
    });
  }
  ASSERT_TRUE(WaitFor([&] { return a.delay_calls() == 1; }, 2s));
  const auto start = Clock::now();
  channel.reset();
  auto future = finished.get_future();
  ASSERT_EQ(future.wait_for(1s), std::future_status::ready);
  EXPECT_EQ(future.get().code(), StatusCode::CANCELLED);
  EXPECT_LT(Clock::now() - start, 1s);
}

TEST(ClusterChannelTest, ChannelDestroyedInsideDoneOnItsOwnThread) {
  TestProvider a;
  auto channel = NewTestChannel(TestOptions(), StaticRegistry({a.address()}));
  auto* holder = new std::shared_ptr<Channel>(std::move(channel));
  std::promise<void> destroyed;
  const demo::EchoRequest request = EchoOf("x");
  // Straight through the channel: a proxy would hold a second reference to it.
  codegen::CallbackUnaryCall<demo::EchoResponse>(**holder, demo::EchoServiceMethods::Echo, request,
                                                 {}, [&](Result<demo::EchoResponse> result) {
                                                   EXPECT_TRUE(result.ok());
                                                   delete holder;
                                                   destroyed.set_value();
                                                 });
  EXPECT_EQ(destroyed.get_future().wait_for(2s), std::future_status::ready);
}

}  // namespace
}  // namespace ferry::cluster
