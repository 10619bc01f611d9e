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

// More threads than rows, so that some own a row and the rest share row 0.
TEST(CounterTest, IncrementsFromManyThreadsSumExactly) {
  const int threads = static_cast<int>(detail::ShardCount()) + 8;
  constexpr uint64_t kPerThread = 100'000;
  Counter counter;
  RunConcurrently(threads, [&] {
    for (uint64_t i = 0; i < kPerThread; ++i) counter.Increment();
  });
  EXPECT_EQ(counter.Value(), static_cast<uint64_t>(threads) * kPerThread);
}

}  // namespace
}  // namespace ferry::metrics
