#include <gtest/gtest.h>

#include <atomic>

#include "cluster_test_util.h"
#include "ferry/codegen/unary_call.h"
#include "test_provider.h"

namespace ferry::cluster {
namespace {

constexpr auto kSlow = 250ms;
constexpr int kCalls = 45;

ClusterOptions BackupOptions(const std::string& mode) {
  ClusterOptions options = TestOptions(mode);
  options.fault_tolerance.max_attempts = 2;
  options.fault_tolerance.backup_delay = 30ms;
  options.fault_tolerance.retry_budget_ratio = 1.0;
  return options;
}

// Calls an idempotent method kCalls times over two fast providers and one that takes kSlow,
// and counts the calls that finished well before kSlow.
int FastCalls(const std::string& mode, uint64_t* slow_executions) {
  TestProvider fast1, fast2, slow;
  slow.extra_sleep_ms = static_cast<uint32_t>(kSlow.count());
  auto channel = NewTestChannel(BackupOptions(mode),
                                StaticRegistry({fast1.address(), fast2.address(), slow.address()}));
  int fast = 0;
  for (int i = 0; i < kCalls; ++i) {
    demo::DelayRequest request = DelayOf(0);
    request.set_payload("call " + std::to_string(i));
    const auto start = Clock::now();
    auto result = CallDelay(*channel, kIdempotentDelay, request);
    EXPECT_TRUE(result.ok()) << result.status();
    if (result.ok()) {
      EXPECT_EQ(result->payload(), request.payload());
    }
    fast += Clock::now() - start < kSlow * 2 / 3 ? 1 : 0;
  }
  *slow_executions = slow.delay_calls();
  return fast;
}

TEST(BackupRequestTest, BackupRequestsCutTheSlowProvidersTail) {
  uint64_t slow_executions = 0;
  const int with_backup = FastCalls("backup", &slow_executions);
  EXPECT_GE(with_backup, kCalls * 95 / 100);
  EXPECT_GT(slow_executions, 0u) << "the slow provider was chosen, and overtaken";

  // Without them, the calls that round robin gives the slow provider wait it out.
  const int without = FastCalls("failover", &slow_executions);
  EXPECT_EQ(slow_executions, uint64_t{kCalls / 3});
  EXPECT_LE(without, kCalls - kCalls / 3);
}

TEST(BackupRequestTest, NoBackupForNonIdempotentMethods) {
  TestProvider a, b;
  a.extra_sleep_ms = b.extra_sleep_ms = 150;
  demo::EchoServiceProxy proxy(
      NewTestChannel(BackupOptions("backup"), StaticRegistry({a.address(), b.address()})));
  const auto start = Clock::now();
  EXPECT_TRUE(proxy.Delay(DelayOf(0)).ok());
  EXPECT_GE(Clock::now() - start, 150ms);
  EXPECT_EQ(a.delay_calls() + b.delay_calls(), 1u);
}

TEST(BackupRequestTest, EachCallCompletesOnceWhicheverAttemptWins) {
  TestProvider a, b;
  // Both answer at about the backup delay: the attempts race.
  a.extra_sleep_ms = b.extra_sleep_ms = 30;
  auto channel =
      NewTestChannel(BackupOptions("backup"), StaticRegistry({a.address(), b.address()}));
  constexpr int kRacing = 100;
  std::atomic<int> completions{0};
  std::atomic<int> correct{0};
  std::vector<demo::DelayRequest> requests(kRacing);
  for (int i = 0; i < kRacing; ++i) {
    requests[i] = DelayOf(0);
    requests[i].set_payload(std::to_string(i));
    codegen::CallbackUnaryCall<demo::EchoResponse>(
        *channel, kIdempotentDelay, requests[i], {}, [&, i](Result<demo::EchoResponse> result) {
          if (result.ok() && result->payload() == std::to_string(i)) correct.fetch_add(1);
          completions.fetch_add(1);
        });
  }
  ASSERT_TRUE(WaitFor([&] { return completions.load() == kRacing; }, 10s));
  EXPECT_EQ(correct.load(), kRacing);
  // The losers' answers arrive later and are dropped, never completing a call twice.
  ASSERT_TRUE(WaitFor([&] { return a.delay_calls() + b.delay_calls() >= kRacing + 1; }, 2s));
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(completions.load(), kRacing);
}

TEST(BackupRequestTest, BackupsSpendTheRetryBudget) {
  TestProvider a, b;
  a.extra_sleep_ms = b.extra_sleep_ms = 100;
  ClusterOptions options = BackupOptions("backup");
  options.fault_tolerance.retry_budget_ratio = 0.0;
  options.fault_tolerance.retry_budget_min_per_second = 2;
  auto channel = NewTestChannel(options, StaticRegistry({a.address(), b.address()}));
  constexpr int kSlowCalls = 8;
  const auto start = Clock::now();
  for (int i = 0; i < kSlowCalls; ++i)
    EXPECT_TRUE(CallDelay(*channel, kIdempotentDelay, DelayOf(0)).ok());
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const uint64_t backups = a.delay_calls() + b.delay_calls() - kSlowCalls;
  EXPECT_LE(static_cast<double>(backups), 2 + 2 * seconds + 1);
  EXPECT_GE(backups, 2u);
}

}  // namespace
}  // namespace ferry::cluster
