#include "bucket_map.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace ferry::plugins {
namespace {

using namespace std::chrono_literals;

const RateLimit kTenPerSecondBurstTwo{.rate = 10, .burst = 2, .description = "10/s, burst 2"};
const RateClock::time_point kStart{};

TEST(TokenBucketTest, IsFullOnceRefilled) {
  TokenBucket bucket(kTenPerSecondBurstTwo, kStart);
  EXPECT_TRUE(bucket.FullAt(kStart));
  ASSERT_TRUE(bucket.TryTake(kStart));
  EXPECT_FALSE(bucket.FullAt(kStart + 99ms));
  EXPECT_TRUE(bucket.FullAt(kStart + 100ms));
}

TEST(BucketMapTest, KeysHaveSeparateBuckets) {
  BucketMap map(100);
  EXPECT_TRUE(map.TryTake("alice", kTenPerSecondBurstTwo, kStart));
  EXPECT_TRUE(map.TryTake("alice", kTenPerSecondBurstTwo, kStart));
  EXPECT_FALSE(map.TryTake("alice", kTenPerSecondBurstTwo, kStart));
  EXPECT_TRUE(map.TryTake("bob", kTenPerSecondBurstTwo, kStart));
  EXPECT_EQ(map.size(), 2u);
}

TEST(BucketMapTest, StaysBoundedByForgettingRefilledBuckets) {
  constexpr size_t kMaxKeys = 64;
  BucketMap map(kMaxKeys);
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(map.TryTake("caller-" + std::to_string(i), kTenPerSecondBurstTwo,
                            kStart + std::chrono::seconds(i)));
  }
  EXPECT_LE(map.size(), kMaxKeys);
  EXPECT_GT(map.size(), 0u);
}

TEST(BucketMapTest, ForgetsRefilledBucketsBeforeBusyOnes) {
  BucketMap map(1600);
  auto take_as_many = [&](const std::string& prefix, int count, RateClock::time_point at) {
    for (int i = 0; i < count; ++i) {
      ASSERT_TRUE(map.TryTake(prefix + std::to_string(i), kTenPerSecondBurstTwo, at));
    }
  };
  take_as_many("idle-", 1000, kStart);
  const auto busy_time = kStart + 1s;
  ASSERT_TRUE(map.TryTake("busy", kTenPerSecondBurstTwo, busy_time));
  ASSERT_TRUE(map.TryTake("busy", kTenPerSecondBurstTwo, busy_time));
  // Two thousand keys do not fit: the idle callers, refilled by now, make room.
  const auto later = busy_time + 10ms;
  take_as_many("new-", 1000, later);
  EXPECT_LE(map.size(), 1600u);
  EXPECT_FALSE(map.TryTake("busy", kTenPerSecondBurstTwo, later))
      << "the busy caller's drained bucket was forgotten, loosening its limit";
}

TEST(BucketMapTest, ConcurrentCallersShareABucketExactly) {
  // Time stands still, so across all threads exactly `burst` calls per key may pass.
  const RateLimit limit{.rate = 1, .burst = 100, .description = "1/s, burst 100"};
  BucketMap map(1000);
  constexpr int kThreads = 4;
  constexpr int kCallsPerThreadPerKey = 100;
  std::atomic<int> passed_shared{0};
  std::atomic<int> passed_own{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCallsPerThreadPerKey; ++i) {
        passed_shared += map.TryTake("shared", limit, kStart) ? 1 : 0;
        passed_own += map.TryTake("own-" + std::to_string(t), limit, kStart) ? 1 : 0;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(passed_shared.load(), 100);
  EXPECT_EQ(passed_own.load(), kThreads * 100);
}

}  // namespace
}  // namespace ferry::plugins
