#include "ferry/framework/metrics/histogram.h"

#include <gtest/gtest.h>

#include <vector>

#include "metrics_test_util.h"

namespace ferry::metrics {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;

// 1 ms, 10 ms, 100 ms.
const std::vector<int64_t> kBounds = {1'000'000, 10'000'000, 100'000'000};

TEST(HistogramTest, BucketsHoldWhatIsAtOrBelowTheirBound) {
  Histogram histogram(kBounds);
  histogram.Observe(nanoseconds(0));
  histogram.Observe(milliseconds(1));                   // on the bound: the 1 ms bucket
  histogram.Observe(milliseconds(1) + nanoseconds(1));  // just past it: the 10 ms bucket
  histogram.Observe(milliseconds(100));
  histogram.Observe(milliseconds(101));  // past the last bound: +Inf
  histogram.Observe(std::chrono::seconds(30));

  const HistogramCounts counts = histogram.Read();
  EXPECT_EQ(counts.cumulative, (std::vector<uint64_t>{2, 3, 4, 6}));
  EXPECT_EQ(counts.count(), 6u);
  EXPECT_DOUBLE_EQ(counts.sum_seconds, 0.001 + 0.001000001 + 0.1 + 0.101 + 30);
}

TEST(HistogramTest, NegativeDurationsCountAsZero) {
  Histogram histogram(kBounds);
  histogram.Observe(nanoseconds(-5));
  histogram.ObserveSeconds(-1);
  const HistogramCounts counts = histogram.Read();
  EXPECT_EQ(counts.cumulative, (std::vector<uint64_t>{2, 2, 2, 2}));
  EXPECT_EQ(counts.sum_seconds, 0);
}

TEST(HistogramTest, ObserveSecondsRoundsToNanoseconds) {
  Histogram histogram(kBounds);
  histogram.ObserveSeconds(0.001);  // on the bound, once in nanoseconds
  histogram.ObserveSeconds(0.05);
  const HistogramCounts counts = histogram.Read();
  EXPECT_EQ(counts.cumulative, (std::vector<uint64_t>{1, 1, 2, 2}));
  EXPECT_DOUBLE_EQ(counts.sum_seconds, 0.051);
}

TEST(HistogramTest, ObservationsFromManyThreadsCountExactly) {
  constexpr int kThreads = 8;
  constexpr int kPerThread = 50'000;
  Histogram histogram(kBounds);
  RunConcurrently(kThreads, [&] {
    for (int i = 0; i < kPerThread; ++i) histogram.Observe(milliseconds(i % 2 == 0 ? 5 : 50));
  });
  const HistogramCounts counts = histogram.Read();
  constexpr uint64_t kHalf = kThreads * kPerThread / 2;
  EXPECT_EQ(counts.cumulative, (std::vector<uint64_t>{0, kHalf, 2 * kHalf, 2 * kHalf}));
  EXPECT_DOUBLE_EQ(counts.sum_seconds, kHalf * 0.005 + kHalf * 0.05);
}

TEST(HistogramTest, DefaultLatencyBucketsSpan100MicrosecondsTo10Seconds) {
  const std::vector<double> bounds = DefaultLatencyBuckets();
  ASSERT_FALSE(bounds.empty());
  EXPECT_EQ(bounds.front(), 0.0001);
  EXPECT_EQ(bounds.back(), 10);
  for (size_t i = 1; i < bounds.size(); ++i) EXPECT_LT(bounds[i - 1], bounds[i]);
}

}  // namespace
}  // namespace ferry::metrics
