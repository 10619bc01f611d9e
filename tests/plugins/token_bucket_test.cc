#include "atomic_token_bucket.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace ferry::plugins {
namespace {

using namespace std::chrono_literals;

const RateLimit kTenPerSecondBurstTwo{.rate = 10, .burst = 2, .description = "10/s, burst 2"};
const RateClock::time_point kStart = RateClock::time_point{} + 1h;

// What both buckets promise: the mutex-guarded one (caller and field buckets) and the lock-free
// one (method buckets).
template <class Bucket>
class TokenBucketContractTest : public ::testing::Test {};
using Buckets = ::testing::Types<TokenBucket, AtomicTokenBucket>;
TYPED_TEST_SUITE(TokenBucketContractTest, Buckets);

TYPED_TEST(TokenBucketContractTest, AllowsTheBurstThenRefillsAtTheRate) {
  TypeParam bucket(kTenPerSecondBurstTwo, kStart);
  EXPECT_TRUE(bucket.TryTake(kStart));
  EXPECT_TRUE(bucket.TryTake(kStart));
  EXPECT_FALSE(bucket.TryTake(kStart));
  EXPECT_FALSE(bucket.TryTake(kStart + 99ms));  // 0.99 tokens
  EXPECT_TRUE(bucket.TryTake(kStart + 100ms));
  EXPECT_FALSE(bucket.TryTake(kStart + 100ms));
}

TYPED_TEST(TokenBucketContractTest, NeverHoldsMoreThanTheBurst) {
  TypeParam bucket(kTenPerSecondBurstTwo, kStart);
  const auto later = kStart + 1h;
  EXPECT_TRUE(bucket.TryTake(later));
  EXPECT_TRUE(bucket.TryTake(later));
  EXPECT_FALSE(bucket.TryTake(later));
}

// Server threads stamp calls when they read them, so the call that creates the bucket may not
// carry the earliest time.
TEST(AtomicTokenBucketTest, CallsStampedJustBeforeItWasMadeFit) {
  AtomicTokenBucket bucket(RateLimit{.rate = 10, .burst = 1}, kStart);
  EXPECT_TRUE(bucket.TryTake(kStart - 1ms));
  EXPECT_FALSE(bucket.TryTake(kStart));
}

TEST(AtomicTokenBucketTest, HighRatesKeepTheirInterval) {
  AtomicTokenBucket bucket(RateLimit{.rate = 1e8, .burst = 1}, kStart);  // one call per 10 ns
  EXPECT_TRUE(bucket.TryTake(kStart));
  EXPECT_FALSE(bucket.TryTake(kStart + 9ns));
  EXPECT_TRUE(bucket.TryTake(kStart + 10ns));

  // 3.33 ns per call: 10 µs of calls every nanosecond let through the burst of 10 and about
  // 3,000 more; rounding the interval up to an eighth of a nanosecond (3.375 ns) makes it 2,963.
  AtomicTokenBucket odd(RateLimit{.rate = 3e8, .burst = 10}, kStart);
  int taken = 0;
  for (int ns = 0; ns < 10000; ++ns) taken += odd.TryTake(kStart + std::chrono::nanoseconds(ns));
  EXPECT_GE(taken, 10 + 2950);
  EXPECT_LE(taken, 10 + 3000);
}

TEST(AtomicTokenBucketTest, VerySlowRatesDoNotOverflow) {
  AtomicTokenBucket bucket(RateLimit{.rate = 1e-9, .burst = 1 << 30}, kStart);
  EXPECT_TRUE(bucket.TryTake(kStart));
  AtomicTokenBucket one(RateLimit{.rate = 1e-9, .burst = 1}, kStart);
  EXPECT_TRUE(one.TryTake(kStart));
  EXPECT_FALSE(one.TryTake(kStart + 24h * 365));
}

TEST(AtomicTokenBucketTest, ThreadsTogetherTakeNoMoreThanTheBurst) {
  AtomicTokenBucket bucket(RateLimit{.rate = 1, .burst = 1000}, kStart);
  std::atomic<int> taken{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) taken += bucket.TryTake(kStart);
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(taken.load(), 1000);
}

}  // namespace
}  // namespace ferry::plugins
