#include <gtest/gtest.h>

#include <condition_variable>
#include <functional>
#include <future>
#include <mutex>
#include <string>

#include "cluster_test_util.h"
#include "ferry/framework/channel.h"
#include "stats/framework_metrics.h"
#include "test_provider.h"
#include "unreachable_address.h"

namespace ferry::cluster {
namespace {

constexpr uint32_t kUnavailable = static_cast<uint32_t>(StatusCode::UNAVAILABLE);

int CountFailures(int calls, const std::function<Status()>& call) {
  int failures = 0;
  for (int i = 0; i < calls; ++i) failures += call().ok() ? 0 : 1;
  return failures;
}

// The outcomes of asynchronous calls, for a test that waits on how many have been answered.
class CallLog {
 public:
  std::function<void(Result<demo::EchoResponse>)> Track() {
    return [this](Result<demo::EchoResponse> result) {
      {
        std::lock_guard lock(mu_);
        ++answered_;
        if (!result.ok() && failures_++ == 0) first_failure_ = result.status();
      }
      changed_.notify_all();
    };
  }
  bool WaitForAnswers(size_t count, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mu_);
    return changed_.wait_for(lock, timeout, [&] { return answered_ >= count; });
  }
  size_t failures() {
    std::lock_guard lock(mu_);
    return failures_;
  }
  Status first_failure() {
    std::lock_guard lock(mu_);
    return first_failure_;
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  size_t answered_ = 0;
  size_t failures_ = 0;
  Status first_failure_;
};

TEST(FailoverTest, IdempotentCallMovesOnFromAProviderThatIsDown) {
  TestProvider live;
  const auto registry = StaticRegistry({DeadAddress(), live.address()});
  demo::EchoServiceProxy failover(NewTestChannel(TestOptions("failover"), registry));
  EXPECT_EQ(CountFailures(20, [&] { return failover.Echo(EchoOf("x")).status(); }), 0);
  EXPECT_EQ(live.echo_calls(), 20u);

  // Without failover, the calls the balancer sends to the dead provider fail.
  demo::EchoServiceProxy failfast(NewTestChannel(TestOptions("failfast"), registry));
  EXPECT_EQ(CountFailures(20, [&] { return failfast.Echo(EchoOf("x")).status(); }), 10);
}

// With no mode configured, a method marked (ferry.idempotent) fails over (2 attempts) and one
// that is not stays failfast: Echo survives a dead provider, Delay does not.
TEST(FailoverTest, IdempotentMethodsFailOverByDefaultAndTheOthersDoNot) {
  TestProvider live;
  const auto registry = StaticRegistry({DeadAddress(), live.address()});
  demo::EchoServiceProxy proxy(NewTestChannel(TestOptions(/*mode=*/""), registry));
  EXPECT_EQ(CountFailures(20, [&] { return proxy.Echo(EchoOf("x")).status(); }), 0);
  EXPECT_EQ(live.echo_calls(), 20u);
  EXPECT_EQ(CountFailures(20, [&] { return proxy.Delay(DelayOf(0)).status(); }), 10);
  // A mode set for the service applies to every method, idempotent or not.
  demo::EchoServiceProxy failfast(NewTestChannel(TestOptions("failfast"), registry));
  EXPECT_EQ(CountFailures(20, [&] { return failfast.Echo(EchoOf("x")).status(); }), 10);
}

TEST(FailoverTest, NonIdempotentCallMovesOnWhenItCertainlyNeverLeft) {
  BlackHole hole;
  TestProvider live;
  ClusterOptions options = TestOptions("failover");
  options.client.connect_timeout = 100ms;
  // After its connect times out, the connection waits out a long backoff in which calls to it
  // fail at once. Both the call queued while connecting and those refused during the backoff
  // certainly never left.
  options.client.reconnect_initial = 10s;
  options.client.reconnect_max = 10s;
  demo::EchoServiceProxy proxy(
      NewTestChannel(options, StaticRegistry({hole.address(), live.address()})));
  const auto start = Clock::now();
  EXPECT_EQ(CountFailures(20, [&] { return proxy.Delay(DelayOf(0)).status(); }), 0);
  EXPECT_GE(Clock::now() - start, 100ms) << "one call waited for the connect timeout";
  EXPECT_EQ(live.delay_calls(), 20u);
}

TEST(FailoverTest, NonIdempotentCallThatAProviderAnsweredIsNotRetried) {
  TestProvider a, b;
  a.fail_code = kUnavailable;
  b.fail_code = kUnavailable;
  demo::EchoServiceProxy proxy(
      NewTestChannel(TestOptions("failover"), StaticRegistry({a.address(), b.address()})));
  EXPECT_EQ(proxy.Delay(DelayOf(0)).status().code(), StatusCode::UNAVAILABLE);
  EXPECT_EQ(a.delay_calls() + b.delay_calls(), 1u);
  // The same answer to an idempotent call is retried on the other provider.
  EXPECT_EQ(CallDelay(*NewTestChannel(TestOptions("failover"),
                                      StaticRegistry({a.address(), b.address()})),
                      kIdempotentDelay, DelayOf(0))
                .status()
                .code(),
            StatusCode::UNAVAILABLE);
  EXPECT_EQ(a.delay_calls() + b.delay_calls(), 3u);
}

// A provider that goes away while running a call: the call had reached it, so only an
// idempotent one may run again elsewhere. Returns the call's status.
Status CallThroughADyingProvider(const MethodSpec& method, uint64_t* executions) {
  ServerOptions short_grace;
  short_grace.grace_period = 50ms;
  TestProvider a(short_grace), b(short_grace);
  a.extra_sleep_ms = 3000;
  b.extra_sleep_ms = 3000;
  auto channel =
      NewTestChannel(TestOptions("failover"), StaticRegistry({a.address(), b.address()}));
  auto call = std::async(std::launch::async,
                         [&] { return CallDelay(*channel, method, DelayOf(0)).status(); });
  EXPECT_TRUE(WaitFor([&] { return a.delay_calls() + b.delay_calls() == 1; }, 2s));
  TestProvider& victim = a.delay_calls() == 1 ? a : b;
  TestProvider& survivor = &victim == &a ? b : a;
  survivor.extra_sleep_ms = 0;
  victim.Stop();
  const Status status = call.get();
  *executions = a.delay_calls() + b.delay_calls();
  return status;
}

TEST(FailoverTest, NonIdempotentCallLostWithItsConnectionIsNotRetried) {
  uint64_t executions = 0;
  const Status status = CallThroughADyingProvider(demo::EchoServiceMethods::Delay, &executions);
  EXPECT_EQ(status.code(), StatusCode::UNAVAILABLE) << status;
  EXPECT_EQ(executions, 1u);
}

TEST(FailoverTest, IdempotentCallLostWithItsConnectionIsRetried) {
  uint64_t executions = 0;
  const Status status = CallThroughADyingProvider(kIdempotentDelay, &executions);
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_EQ(executions, 2u);
}

TEST(FailoverTest, OverloadedProviderIsSkippedEvenForNonIdempotentCalls) {
  ServerOptions tiny;
  tiny.worker_threads = 1;
  tiny.queue_capacity = 1;
  TestProvider busy(tiny), idle;
  // Fill the busy provider's pool: one call running, one queued.
  ClientOptions direct;
  direct.target = busy.address();
  std::shared_ptr<Channel> filler_channel;
  ASSERT_TRUE(NewChannel(direct, &filler_channel).ok());
  demo::EchoServiceProxy filler(filler_channel);
  CallOptions fill_options;
  fill_options.timeout = 1500ms;
  auto running = filler.DelayAsync(DelayOf(1500), fill_options);
  auto queued = filler.DelayAsync(DelayOf(1500), fill_options);
  ASSERT_TRUE(WaitFor([&] { return busy.delay_calls() == 1; }, 2s));
  CallOptions short_call;
  short_call.timeout = 500ms;
  ASSERT_TRUE(WaitFor(
      [&] {
        return filler.Delay(DelayOf(0), short_call).status().code() == StatusCode::OVERLOADED;
      },
      1s));

  const auto registry = StaticRegistry({busy.address(), idle.address()});
  demo::EchoServiceProxy failover(NewTestChannel(TestOptions("failover"), registry));
  EXPECT_EQ(CountFailures(10, [&] { return failover.Delay(DelayOf(0)).status(); }), 0);
  EXPECT_EQ(idle.delay_calls(), 10u);
  EXPECT_EQ(busy.delay_calls(), 1u) << "rejected calls never ran";

  demo::EchoServiceProxy failfast(NewTestChannel(TestOptions("failfast"), registry));
  EXPECT_EQ(CountFailures(10, [&] { return failfast.Delay(DelayOf(0)).status(); }), 5);
}

// A provider that stops reading: once its connection's write queue is full, calls to it fail
// before they are sent. That is no answer of the provider's: the call goes to the other one even
// though Delay is not idempotent, and the refusals count against the stalled provider, which is
// ejected, instead of passing for fast successes that would keep it in rotation.
TEST(FailoverTest, ACallAStalledProvidersFullWriteQueueRefusesGoesElsewhere) {
  StalledPeer stalled;
  TestProvider live;
  ClusterOptions options = TestOptions("failover");  // round robin: first attempts alternate
  options.client.max_outbound_bytes = 1 << 20;
  options.client.default_timeout = 60s;     // the calls queued to the stalled peer stay pending
  options.client.heartbeat_interval = 60s;  // and its connection is not given up meanwhile
  options.outlier.consecutive_failures = 3;
  options.outlier.base_ejection = 60s;
  options.outlier.max_ejection = 60s;
  const stats::ClusterMetrics& metrics = stats::ClusterFor(kEchoService);
  const uint64_t retries_before = metrics.retries->Value();
  const uint64_t ejections_before = metrics.ejections->Value();
  CallLog calls;  // outlives the channel, which fails the calls still pending when it goes
  demo::EchoServiceProxy proxy(
      NewTestChannel(options, StaticRegistry({stalled.address(), live.address()})));
  demo::DelayRequest request = DelayOf(0);
  request.set_payload(std::string(64 << 10, 'x'));

  // In pairs, one call to each provider; waiting for one of the two to be answered keeps the
  // live provider's queue short while the stalled one's fills, after the socket buffers (a few
  // MiB). Bounded: 300 pairs send the stalled provider 19 MiB.
  for (size_t pair = 0; pair < 300 && metrics.ejections->Value() == ejections_before; ++pair) {
    proxy.DelayWithCallback(request, calls.Track());
    proxy.DelayWithCallback(request, calls.Track());
    ASSERT_TRUE(calls.WaitForAnswers(pair + 1, 10s)) << "pair " << pair;
    if (calls.failures() != 0) break;
  }
  EXPECT_EQ(calls.failures(), 0u) << calls.first_failure();
  EXPECT_EQ(metrics.ejections->Value() - ejections_before, 1u)
      << "three refusals in a row eject the stalled provider";
  EXPECT_EQ(metrics.retries->Value() - retries_before, 3u)
      << "each refused call was sent to the live provider";

  // Ejected: every call goes to the live provider at once, none is refused first.
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(proxy.Delay(request).ok());
  EXPECT_EQ(metrics.retries->Value() - retries_before, 3u);
}

TEST(FailoverTest, AttemptsShareTheCallersDeadline) {
  TestProvider a, b, c;
  ClusterOptions options = TestOptions("failover");
  options.fault_tolerance.max_attempts = 5;
  auto channel = NewTestChannel(options, StaticRegistry({a.address(), b.address(), c.address()}));
  CallOptions call;
  call.timeout = 400ms;
  // Every attempt fails after 150 ms: a fresh timeout per attempt would let the third run to
  // 450 ms.
  auto start = Clock::now();
  Status status = CallDelay(*channel, kIdempotentDelay, DelayOf(150, kUnavailable), call).status();
  auto elapsed = Clock::now() - start;
  EXPECT_EQ(status.code(), StatusCode::DEADLINE_EXCEEDED) << status;
  EXPECT_LT(elapsed, 400ms + 200ms);
  EXPECT_GE(a.delay_calls() + b.delay_calls() + c.delay_calls(), 2u);
  EXPECT_LE(a.delay_calls() + b.delay_calls() + c.delay_calls(), 3u);

  // Every provider hangs: the first attempt uses the whole budget and is not retried.
  a.extra_sleep_ms = b.extra_sleep_ms = c.extra_sleep_ms = 3000;
  const uint64_t before = a.delay_calls() + b.delay_calls() + c.delay_calls();
  call.timeout = 300ms;
  start = Clock::now();
  status = CallDelay(*channel, kIdempotentDelay, DelayOf(0), call).status();
  elapsed = Clock::now() - start;
  EXPECT_EQ(status.code(), StatusCode::DEADLINE_EXCEEDED) << status;
  EXPECT_LT(elapsed, 300ms + 200ms);
  EXPECT_EQ(a.delay_calls() + b.delay_calls() + c.delay_calls(), before + 1);
}

TEST(FailoverTest, RetryBudgetStopsARetryStorm) {
  TestProvider a, b, c;
  a.fail_code = b.fail_code = c.fail_code = kUnavailable;
  ClusterOptions options = TestOptions("failover");
  options.fault_tolerance.max_attempts = 3;
  options.fault_tolerance.retry_budget_ratio = 0.1;
  options.fault_tolerance.retry_budget_min_per_second = 1;
  demo::EchoServiceProxy proxy(
      NewTestChannel(options, StaticRegistry({a.address(), b.address(), c.address()})));
  constexpr int kCalls = 200;
  const auto start = Clock::now();
  EXPECT_EQ(CountFailures(kCalls, [&] { return proxy.Echo(EchoOf("x")).status(); }), kCalls);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const double retries =
      static_cast<double>(a.echo_calls() + b.echo_calls() + c.echo_calls()) - kCalls;
  // ratio x calls, plus the initial second and the time-based minimum.
  EXPECT_LE(retries, 0.1 * kCalls + 1 + 1 * (seconds + 1)) << seconds << " s";
  EXPECT_GE(retries, 0.1 * kCalls - 1) << "the budget allows this many";
}

TEST(FailoverTest, ApplicationErrorsAreNotRetried) {
  TestProvider a, b;
  a.fail_code = b.fail_code = static_cast<uint32_t>(StatusCode::INVALID_ARGUMENT);
  demo::EchoServiceProxy proxy(
      NewTestChannel(TestOptions("failover"), StaticRegistry({a.address(), b.address()})));
  EXPECT_EQ(proxy.Echo(EchoOf("x")).status().code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(a.echo_calls() + b.echo_calls(), 1u);
}

TEST(FailoverTest, MethodPolicyOverridesTheServicePolicy) {
  TestProvider live;
  ClusterOptions options = TestOptions("failfast");
  options.method_fault_tolerance["Echo"] = options.fault_tolerance;
  options.method_fault_tolerance["Echo"].mode = "failover";
  demo::EchoServiceProxy proxy(
      NewTestChannel(options, StaticRegistry({DeadAddress(), live.address()})));
  // Delay first, while round robin still alternates plainly: every other call hits the dead one.
  EXPECT_EQ(CountFailures(10, [&] { return proxy.Delay(DelayOf(0)).status(); }), 5);
  EXPECT_EQ(CountFailures(10, [&] { return proxy.Echo(EchoOf("x")).status(); }), 0);
}

}  // namespace
}  // namespace ferry::cluster
