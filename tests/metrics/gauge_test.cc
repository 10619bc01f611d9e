#include "ferry/framework/metrics/gauge.h"

#include <gtest/gtest.h>

#include "metrics_test_util.h"

namespace ferry::metrics {
namespace {

TEST(GaugeTest, SetReplacesAndAddMoves) {
  Gauge gauge;
  EXPECT_EQ(gauge.Value(), 0);
  gauge.Set(7.5);
  gauge.Add(-2);
  EXPECT_EQ(gauge.Value(), 5.5);
  gauge.Set(1);
  EXPECT_EQ(gauge.Value(), 1);
}

TEST(GaugeTest, AddsFromManyThreadsSumExactly) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 10'000;
  Gauge gauge;
  RunConcurrently(kThreads, [&] {
    for (int i = 0; i < kPerThread; ++i) gauge.Add(0.5);  // exact in binary
  });
  EXPECT_EQ(gauge.Value(), kThreads * kPerThread * 0.5);
}

}  // namespace
}  // namespace ferry::metrics
