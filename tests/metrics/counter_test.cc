#include "ferry/framework/metrics/counter.h"

#include <gtest/gtest.h>

#include "metrics_test_util.h"

namespace ferry::metrics {
namespace {

TEST(CounterTest, StartsAtZeroAndAddsWhatItIsGiven) {
  Counter counter;
  EXPECT_EQ(counter.Value(), 0u);
  counter.Increment();
  counter.Increment(41);
  EXPECT_EQ(counter.Value(), 42u);
}

// More threads than shards, so that some share a shard and some do not.
TEST(CounterTest, IncrementsFromManyThreadsSumExactly) {
  constexpr int kThreads = 16;
  constexpr uint64_t kPerThread = 100'000;
  Counter counter;
  RunConcurrently(kThreads, [&] {
    for (uint64_t i = 0; i < kPerThread; ++i) counter.Increment();
  });
  EXPECT_EQ(counter.Value(), kThreads * kPerThread);
}

}  // namespace
}  // namespace ferry::metrics
