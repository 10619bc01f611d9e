#include "ferry/bench/load_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace ferry::bench {
namespace {

using std::chrono::microseconds;
using ::testing::HasSubstr;
using ::testing::Not;

LoadOptions Options(double slow_ratio) {
  LoadOptions options;
  options.target = "127.0.0.1:1";
  options.slow_ratio = slow_ratio;
  return options;
}

std::string LastLine(const std::string& text) {
  std::string trimmed = text;
  while (!trimmed.empty() && trimmed.back() == '\n') trimmed.pop_back();
  return trimmed.substr(trimmed.rfind('\n') + 1);
}

LoadSummary TwoSecondsOfCalls() {
  LoadSummary s;
  s.measured_seconds = 2;
  for (int i = 0; i < 1000; ++i) {
    s.latency.Record(microseconds(i < 900 ? 100 : 5'000));
    if (i < 900) s.fast_latency.Record(microseconds(100));
  }
  s.ok_calls = 1000;
  s.errors = 3;
  s.errors_by_status = {{"UNAVAILABLE", 2}, {"DEADLINE_EXCEEDED", 1}};
  return s;
}

TEST(LoadReportTest, SummaryEndsWithTheExactResultLine) {
  const LoadSummary summary = TwoSecondsOfCalls();
  std::ostringstream out;
  LoadReport("test-bench", Options(0), out).PrintSummary(summary);
  // 5 ms is reported to bucket precision.
  const uint64_t slow_us = ToMicros(summary.latency.ValueAtPercentile(99));
  EXPECT_NEAR(static_cast<double>(slow_us), 5000, 50);
  EXPECT_EQ(LastLine(out.str()),
            "RESULT qps=500 p50_us=100 p90_us=100 p99_us=" + std::to_string(slow_us) +
                " p999_us=" + std::to_string(slow_us) + " errors=3");
  EXPECT_THAT(out.str(), HasSubstr("UNAVAILABLE=2 DEADLINE_EXCEEDED=1"));
  EXPECT_THAT(out.str(), Not(HasSubstr("fast-only")));
}

TEST(LoadReportTest, SlowModeAddsTheFastOnlyTail) {
  std::ostringstream out;
  LoadReport("test-bench", Options(0.1), out).PrintSummary(TwoSecondsOfCalls());
  EXPECT_THAT(out.str(), HasSubstr("fast-only latency us (900 calls, 100 slow excluded): "
                                   "p50=100 p99=100 p999=100"));
  EXPECT_THAT(LastLine(out.str()), HasSubstr("RESULT qps=500 "));
}

TEST(LoadReportTest, UnfinishedCallsAreReportedBeforeTheResult) {
  LoadSummary s = TwoSecondsOfCalls();
  s.unfinished_calls = 7;
  std::ostringstream out;
  LoadReport("test-bench", Options(0), out).PrintSummary(s);
  EXPECT_THAT(out.str(), HasSubstr("7 calls never completed"));
  EXPECT_THAT(LastLine(out.str()), HasSubstr("RESULT "));
}

TEST(LoadReportTest, ProgressLineShowsQpsErrorsAndP99) {
  std::ostringstream out;
  ProgressSample sample;
  sample.elapsed_seconds = 3;
  sample.interval_qps = 12345.4;
  sample.errors = 2;
  sample.p99 = microseconds(87);
  LoadReport("test-bench", Options(0), out).PrintProgress(sample);
  EXPECT_EQ(out.str(), "[   3.0s] qps=12345 errors=2 p99_us=87\n");
}

TEST(LoadReportTest, MicrosecondsRoundToNearest) {
  EXPECT_EQ(ToMicros(std::chrono::nanoseconds(1'499)), 1u);
  EXPECT_EQ(ToMicros(std::chrono::nanoseconds(1'500)), 2u);
  EXPECT_EQ(ToMicros(std::chrono::nanoseconds(-1)), 0u);
}

}  // namespace
}  // namespace ferry::bench
