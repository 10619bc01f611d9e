// The status page's last minute of a method: figures between a window-old sample and now, and
// percentiles interpolated within histogram buckets.
#include "app/method_window.h"

#include <gtest/gtest.h>

#include <chrono>

namespace ferry::app {
namespace {

using namespace std::chrono_literals;
using Clock = MethodWindow::Clock;

// Each test counts into methods of its own: the metrics are the process's.
stats::MethodMetrics& MethodNamed(const char* name) {
  return stats::MethodMetricsFor(stats::MethodMetrics::Side::kServer, "test.Window", name);
}

TEST(BucketQuantileTest, InterpolatesWithinTheBucketHoldingTheRank) {
  const std::vector<double> bounds = {0.001, 0.002, 0.004};
  // 10 at or below 1 ms, 10 more in (1, 2] ms, none above.
  const std::vector<uint64_t> cumulative = {10, 20, 20, 20};
  EXPECT_DOUBLE_EQ(BucketQuantile(0.25, cumulative, bounds), 0.0005);
  EXPECT_DOUBLE_EQ(BucketQuantile(0.5, cumulative, bounds), 0.001);
  EXPECT_DOUBLE_EQ(BucketQuantile(0.75, cumulative, bounds), 0.0015);
  EXPECT_DOUBLE_EQ(BucketQuantile(1.0, cumulative, bounds), 0.002);
}

TEST(BucketQuantileTest, ObservationsAboveTheLastBoundReportIt) {
  EXPECT_DOUBLE_EQ(BucketQuantile(0.99, {0, 0, 5}, {0.1, 0.2}), 0.2);
}

TEST(BucketQuantileTest, NoObservationsIsZero) {
  EXPECT_EQ(BucketQuantile(0.5, {0, 0, 0}, {0.1, 0.2}), 0);
  EXPECT_EQ(BucketQuantile(0.5, {}, {0.1}), 0);
}

TEST(MethodWindowTest, ZerosBeforeTheFirstSample) {
  stats::MethodMetrics& method = MethodNamed("Unsampled");
  method.Record(StatusCode::OK, 1ms);
  MethodWindow window({&method}, 60s);
  const std::vector<MethodStatus> read = window.Read(Clock::now());
  ASSERT_EQ(read.size(), 1u);
  EXPECT_EQ(read[0].service, "test.Window");
  EXPECT_EQ(read[0].method, "Unsampled");
  EXPECT_EQ(read[0].calls, 0u);
}

TEST(MethodWindowTest, CountsWhatHappenedSinceTheWindowStarted) {
  stats::MethodMetrics& method = MethodNamed("Counted");
  for (int i = 0; i < 5; ++i) method.Record(StatusCode::OK, 1ms);  // before the window
  MethodWindow window({&method}, 60s);
  const Clock::time_point t0 = Clock::now();
  window.Sample(t0);
  for (int i = 0; i < 90; ++i) method.Record(StatusCode::OK, 300us);
  for (int i = 0; i < 10; ++i) method.Record(StatusCode::INTERNAL, 20ms);
  const MethodStatus status = window.Read(t0 + 10s)[0];
  EXPECT_EQ(status.calls, 100u);
  EXPECT_EQ(status.errors, 10u);
  EXPECT_DOUBLE_EQ(status.qps, 10.0);
  // 300 us falls in (250 us, 500 us]; 20 ms in (10 ms, 25 ms].
  EXPECT_GT(status.p50_ms, 0.25);
  EXPECT_LE(status.p50_ms, 0.5);
  EXPECT_GT(status.p99_ms, 10);
  EXPECT_LE(status.p99_ms, 25);
}

TEST(MethodWindowTest, OldSamplesLeaveTheWindow) {
  stats::MethodMetrics& method = MethodNamed("Sliding");
  MethodWindow window({&method}, 60s);
  const Clock::time_point t0 = Clock::now();
  window.Sample(t0);
  for (int i = 0; i < 30; ++i) method.Record(StatusCode::OK, 1ms);
  window.Sample(t0 + 30s);
  for (int i = 0; i < 6; ++i) method.Record(StatusCode::OK, 1ms);
  window.Sample(t0 + 60s);
  window.Sample(t0 + 90s);
  // The window now starts at the sample taken at 30 s: the first 30 calls are out of it.
  const MethodStatus status = window.Read(t0 + 90s)[0];
  EXPECT_EQ(status.calls, 6u);
  EXPECT_DOUBLE_EQ(status.qps, 6.0 / 60);
}

}  // namespace
}  // namespace ferry::app
