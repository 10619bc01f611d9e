#include "ferry/framework/metrics/text_format.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>

namespace ferry::metrics {
namespace {

TEST(TextFormatTest, ContentTypeIsVersion004) {
  EXPECT_EQ(kTextContentType, "text/plain; version=0.0.4; charset=utf-8");
}

TEST(TextFormatTest, RendersASmallRegistry) {
  MetricsRegistry registry;
  CounterFamily* calls =
      *registry.AddCounter("ferry_server_calls_total", "Calls served.", {"method", "code"});
  (*calls->WithLabels({"Echo", "OK"}))->Increment(7);
  (*calls->WithLabels({"Echo", "CANCELLED"}))->Increment();
  HistogramFamily* duration = *registry.AddHistogram("ferry_server_call_duration_seconds",
                                                     "Time to answer.", {"method"}, {0.001, 0.25});
  Histogram* echo = *duration->WithLabels({"Echo"});
  echo->Observe(std::chrono::microseconds(500));
  echo->Observe(std::chrono::milliseconds(100));
  echo->Observe(std::chrono::seconds(2));
  (*registry.AddGauge("backlog", "Entries waiting."))->WithLabels({}).value()->Set(2.5);
  UpDownCounterFamily* in_flight = *registry.AddUpDownCounter("in_flight", "Calls running.");
  (*in_flight->WithLabels({}))->Increment();
  CallbackFamily* depth = *registry.AddGaugeCallback("queue_depth", "Tasks queued.", {"pool"});
  Result<CallbackHandle> bound = depth->Bind({"business"}, [] { return 4.0; });
  ASSERT_TRUE(bound.ok());

  EXPECT_EQ(RenderText(registry),
            "# HELP backlog Entries waiting.\n"
            "# TYPE backlog gauge\n"
            "backlog 2.5\n"
            "# HELP ferry_server_call_duration_seconds Time to answer.\n"
            "# TYPE ferry_server_call_duration_seconds histogram\n"
            "ferry_server_call_duration_seconds_bucket{method=\"Echo\",le=\"0.001\"} 1\n"
            "ferry_server_call_duration_seconds_bucket{method=\"Echo\",le=\"0.25\"} 2\n"
            "ferry_server_call_duration_seconds_bucket{method=\"Echo\",le=\"+Inf\"} 3\n"
            "ferry_server_call_duration_seconds_sum{method=\"Echo\"} 2.1005\n"
            "ferry_server_call_duration_seconds_count{method=\"Echo\"} 3\n"
            "# HELP ferry_server_calls_total Calls served.\n"
            "# TYPE ferry_server_calls_total counter\n"
            "ferry_server_calls_total{method=\"Echo\",code=\"CANCELLED\"} 1\n"
            "ferry_server_calls_total{method=\"Echo\",code=\"OK\"} 7\n"
            "# HELP in_flight Calls running.\n"
            "# TYPE in_flight gauge\n"
            "in_flight 1\n"
            "# HELP queue_depth Tasks queued.\n"
            "# TYPE queue_depth gauge\n"
            "queue_depth{pool=\"business\"} 4\n");
}

TEST(TextFormatTest, HistogramWithoutLabelsHasOnlyLe) {
  MetricsRegistry registry;
  HistogramFamily* wait = *registry.AddHistogram("wait_seconds", "Queue wait.", {}, {0.0001});
  (*wait->WithLabels({}))->Observe(std::chrono::nanoseconds(100'000));
  EXPECT_EQ(RenderText(registry),
            "# HELP wait_seconds Queue wait.\n"
            "# TYPE wait_seconds histogram\n"
            "wait_seconds_bucket{le=\"0.0001\"} 1\n"
            "wait_seconds_bucket{le=\"+Inf\"} 1\n"
            "wait_seconds_sum 0.0001\n"
            "wait_seconds_count 1\n");
}

TEST(TextFormatTest, EscapesLabelValuesAndHelp) {
  MetricsRegistry registry;
  CounterFamily* family =
      *registry.AddCounter("odd_total", "Back\\slash, \"quotes\" and\nnew line.", {"value"});
  (*family->WithLabels({"a\\b\"c\nd"}))->Increment();
  EXPECT_EQ(RenderText(registry),
            "# HELP odd_total Back\\\\slash, \"quotes\" and\\nnew line.\n"
            "# TYPE odd_total counter\n"
            "odd_total{value=\"a\\\\b\\\"c\\nd\"} 1\n");
}

TEST(TextFormatTest, NumbersReadBackExactlyWithoutNeedlessExponents) {
  FamilySnapshot family;
  family.name = "values";
  family.help = "Values.";
  family.label_names = {"case"};
  const double inf = std::numeric_limits<double>::infinity();
  const std::pair<double, const char*> cases[] = {{0, "0"},
                                                  {2.5, "2.5"},
                                                  {0.0001, "0.0001"},
                                                  {0.00025, "0.00025"},
                                                  {1e-05, "1e-05"},
                                                  {-0.5, "-0.5"},
                                                  {123456789, "123456789"},
                                                  {1e20, "1e+20"},
                                                  {0.1 + 0.2, "0.30000000000000004"},
                                                  {NAN, "NaN"},
                                                  {inf, "+Inf"},
                                                  {-inf, "-Inf"}};
  std::string expected = "# HELP values Values.\n# TYPE values gauge\n";
  for (const auto& [value, text] : cases) {
    Series& series = family.series.emplace_back();
    series.label_values = {text};
    series.value = value;
    expected += std::string("values{case=\"") + text + "\"} " + text + "\n";
  }
  EXPECT_EQ(RenderText({family}), expected);
}

}  // namespace
}  // namespace ferry::metrics
