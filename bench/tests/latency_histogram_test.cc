#include "ferry/bench/latency_histogram.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <thread>

namespace ferry::bench {
namespace {

using std::chrono::microseconds;
using std::chrono::nanoseconds;

double RelativeError(nanoseconds reported, nanoseconds actual) {
  return std::abs(static_cast<double>(reported.count() - actual.count())) /
         static_cast<double>(actual.count());
}

TEST(LatencyHistogramTest, EmptyHistogramReportsZero) {
  LatencyHistogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.ValueAtPercentile(50), nanoseconds(0));
  EXPECT_EQ(h.min(), nanoseconds(0));
  EXPECT_EQ(h.max(), nanoseconds(0));
  EXPECT_EQ(h.mean(), nanoseconds(0));
}

TEST(LatencyHistogramTest, SingleValueIsReportedExactly) {
  LatencyHistogram h;
  h.Record(microseconds(1234));
  EXPECT_EQ(h.ValueAtPercentile(0.1), microseconds(1234));
  EXPECT_EQ(h.ValueAtPercentile(99.9), microseconds(1234));
  EXPECT_EQ(h.min(), microseconds(1234));
  EXPECT_EQ(h.max(), microseconds(1234));
}

// Pins min and max far away so that clamping to them cannot hide a bucket's imprecision.
TEST(LatencyHistogramTest, PercentilesAreWithinOnePercentFromOneMicrosecondToSixtySeconds) {
  for (double v = 1'000; v <= 60e9; v *= 1.37) {
    const nanoseconds value(static_cast<int64_t>(v));
    LatencyHistogram h;
    h.Record(nanoseconds(0));
    for (int i = 0; i < 3; ++i) h.Record(value);
    h.Record(LatencyHistogram::kMaxTrackable);
    EXPECT_LE(RelativeError(h.ValueAtPercentile(50), value), 0.01) << value.count() << " ns";
  }
}

TEST(LatencyHistogramTest, PercentilesOfAUniformSpread) {
  LatencyHistogram h;
  for (int i = 1; i <= 100'000; ++i) h.Record(microseconds(i));
  EXPECT_EQ(h.count(), 100'000u);
  EXPECT_LE(RelativeError(h.ValueAtPercentile(50), microseconds(50'000)), 0.01);
  EXPECT_LE(RelativeError(h.ValueAtPercentile(90), microseconds(90'000)), 0.01);
  EXPECT_LE(RelativeError(h.ValueAtPercentile(99), microseconds(99'000)), 0.01);
  EXPECT_LE(RelativeError(h.ValueAtPercentile(99.9), microseconds(99'900)), 0.01);
  EXPECT_EQ(h.ValueAtPercentile(100), microseconds(100'000));
  EXPECT_EQ(h.min(), microseconds(1));
  EXPECT_LE(RelativeError(h.mean(), nanoseconds(50'000'500)), 0.0001);
}

TEST(LatencyHistogramTest, OutOfRangeValuesAreClamped) {
  LatencyHistogram h;
  h.Record(std::chrono::seconds(100));
  h.Record(nanoseconds(-5));
  EXPECT_EQ(h.max(), LatencyHistogram::kMaxTrackable);
  EXPECT_EQ(h.ValueAtPercentile(100), LatencyHistogram::kMaxTrackable);
  EXPECT_EQ(h.min(), nanoseconds(0));
}

TEST(LatencyHistogramTest, MergeEqualsRecordingEverythingInOne) {
  LatencyHistogram a;
  LatencyHistogram b;
  LatencyHistogram all;
  for (int i = 0; i < 5'000; ++i) {
    const nanoseconds fast(20'000 + i * 7);
    const nanoseconds slow(5'000'000 + i * 311);
    a.Record(fast);
    b.Record(slow);
    all.Record(fast);
    all.Record(slow);
  }
  LatencyHistogram merged;
  merged.Merge(a);
  merged.Merge(b);
  EXPECT_EQ(merged.count(), all.count());
  EXPECT_EQ(merged.min(), all.min());
  EXPECT_EQ(merged.max(), all.max());
  EXPECT_EQ(merged.mean(), all.mean());
  for (double p : {1.0, 25.0, 50.0, 50.1, 90.0, 99.0, 99.9}) {
    EXPECT_EQ(merged.ValueAtPercentile(p), all.ValueAtPercentile(p)) << "p" << p;
  }
  // The fast half is below the median, the slow half above.
  EXPECT_LT(merged.ValueAtPercentile(50), microseconds(100));
  EXPECT_GT(merged.ValueAtPercentile(50.1), std::chrono::milliseconds(4));
}

TEST(LatencyHistogramTest, MergeWhileAnotherThreadRecords) {
  LatencyHistogram recording;
  constexpr int kValues = 200'000;
  std::thread writer([&] {
    for (int i = 0; i < kValues; ++i) recording.Record(microseconds(1 + i % 1000));
  });
  LatencyHistogram snapshot;
  for (int i = 0; i < 50; ++i) {
    snapshot.Reset();
    snapshot.Merge(recording);
    EXPECT_LE(snapshot.count(), static_cast<uint64_t>(kValues));
  }
  writer.join();
  snapshot.Reset();
  snapshot.Merge(recording);
  EXPECT_EQ(snapshot.count(), static_cast<uint64_t>(kValues));
  EXPECT_EQ(snapshot.max(), microseconds(1000));
}

TEST(LatencyHistogramTest, ResetForgetsEverything) {
  LatencyHistogram h;
  h.Record(microseconds(10));
  h.Reset();
  EXPECT_EQ(h.count(), 0u);
  h.Record(microseconds(3));
  EXPECT_EQ(h.min(), microseconds(3));
  EXPECT_EQ(h.max(), microseconds(3));
}

}  // namespace
}  // namespace ferry::bench
