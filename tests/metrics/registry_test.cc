#include "ferry/framework/metrics/registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "metrics_test_util.h"

namespace ferry::metrics {
namespace {

using ::testing::HasSubstr;

template <class T>
StatusCode CodeOf(const Result<T>& result) {
  return result.status().code();
}

TEST(RegistryTest, RegistersEveryKind) {
  MetricsRegistry registry;
  EXPECT_TRUE(registry.AddCounter("calls_total", "Calls.", {"service"}).ok());
  EXPECT_TRUE(registry.AddGauge("backlog", "Backlog.").ok());
  EXPECT_TRUE(registry.AddUpDownCounter("in_flight", "In flight.", {"method"}).ok());
  EXPECT_TRUE(registry.AddHistogram("duration_seconds", "Durations.", {"method"}).ok());
  EXPECT_TRUE(registry.AddCounterCallback("cpu_seconds_total", "CPU.").ok());
  EXPECT_TRUE(registry.AddGaugeCallback("queue_depth", "Depth.", {"pool"}).ok());
  EXPECT_TRUE(registry.AddCounter("ferry:recorded_total", "Colons are allowed.").ok());
}

TEST(RegistryTest, RefusesNamesOutsidePrometheusRules) {
  MetricsRegistry registry;
  for (const char* name : {"", "1st_total", "a-b_total", "a b_total", "\xc3\xa9_total"}) {
    Result<CounterFamily*> family = registry.AddCounter(name, "Help.");
    EXPECT_EQ(CodeOf(family), StatusCode::INVALID_ARGUMENT) << name;
  }
  EXPECT_THAT(registry.AddGauge("a-b", "Help.").status().message(),
              HasSubstr("[a-zA-Z_:][a-zA-Z0-9_:]*"));
}

TEST(RegistryTest, OnlyCounterNamesEndInTotal) {
  MetricsRegistry registry;
  EXPECT_EQ(CodeOf(registry.AddCounter("calls", "Help.")), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(CodeOf(registry.AddCounterCallback("cpu_seconds", "Help.")),
            StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(CodeOf(registry.AddGauge("calls_total", "Help.")), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(CodeOf(registry.AddHistogram("calls_total", "Help.")), StatusCode::INVALID_ARGUMENT);
}

TEST(RegistryTest, RefusesEmptyOrBrokenHelp) {
  MetricsRegistry registry;
  EXPECT_EQ(CodeOf(registry.AddGauge("a", "")), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(CodeOf(registry.AddGauge("b", "bad \xff byte")), StatusCode::INVALID_ARGUMENT);
}

TEST(RegistryTest, RefusesBadLabelNames) {
  MetricsRegistry registry;
  const std::vector<std::vector<std::string>> bad = {{"__reserved"}, {"1st"}, {"a:b"},
                                                     {"a-b"},        {""},    {"same", "same"}};
  for (const std::vector<std::string>& labels : bad) {
    EXPECT_EQ(CodeOf(registry.AddGauge("g", "Help.", labels)), StatusCode::INVALID_ARGUMENT)
        << labels[0];
  }
  EXPECT_EQ(CodeOf(registry.AddHistogram("h_seconds", "Help.", {"le"})),
            StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(registry.AddGauge("g_le", "Only histograms keep le.", {"le"}).ok());
}

TEST(RegistryTest, RefusesBadBucketBounds) {
  MetricsRegistry registry;
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<std::vector<double>> bad = {{},    {0.1, 0.1}, {0.2, 0.1},    {-1},
                                                {NAN}, {1, inf},   {1e-10, 2e-10}};
  for (const std::vector<double>& bounds : bad) {
    EXPECT_EQ(CodeOf(registry.AddHistogram("h_seconds", "Help.", {}, bounds)),
              StatusCode::INVALID_ARGUMENT);
  }
  EXPECT_TRUE(registry.AddHistogram("h_seconds", "Help.", {}, {0, 1e-9, 1}).ok());
}

TEST(RegistryTest, RefusesTakenNamesAndLinesThatWouldClash) {
  MetricsRegistry registry;
  ASSERT_TRUE(registry.AddCounter("calls_total", "Calls.").ok());
  EXPECT_EQ(CodeOf(registry.AddCounter("calls_total", "Again.")), StatusCode::ALREADY_EXISTS);
  EXPECT_EQ(CodeOf(registry.AddCounterCallback("calls_total", "Again.")),
            StatusCode::ALREADY_EXISTS);

  ASSERT_TRUE(registry.AddHistogram("latency_seconds", "Latency.").ok());
  EXPECT_EQ(CodeOf(registry.AddGauge("latency_seconds_count", "Clash.")),
            StatusCode::ALREADY_EXISTS);
  ASSERT_TRUE(registry.AddGauge("wait_seconds_bucket", "Taken first.").ok());
  EXPECT_EQ(CodeOf(registry.AddHistogram("wait_seconds", "Clash.")), StatusCode::ALREADY_EXISTS);
}

TEST(RegistryTest, ARefusedFamilyLeavesItsNameFree) {
  MetricsRegistry registry;
  EXPECT_FALSE(registry.AddCounter("calls_total", "").ok());
  EXPECT_TRUE(registry.AddCounter("calls_total", "Calls.").ok());
}

TEST(RegistryTest, WithLabelsGivesOneCellPerLabelValues) {
  MetricsRegistry registry;
  CounterFamily* family = *registry.AddCounter("calls_total", "Calls.", {"method", "code"});
  Counter* ok = *family->WithLabels({"Echo", "OK"});
  EXPECT_EQ(*family->WithLabels({"Echo", "OK"}), ok);
  EXPECT_NE(*family->WithLabels({"Echo", "CANCELLED"}), ok);
}

TEST(RegistryTest, WithLabelsRefusesWrongCountsAndBrokenValues) {
  MetricsRegistry registry;
  CounterFamily* family = *registry.AddCounter("calls_total", "Calls.", {"method", "code"});
  EXPECT_EQ(CodeOf(family->WithLabels({"Echo"})), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(CodeOf(family->WithLabels({"Echo", "OK", "extra"})), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(CodeOf(family->WithLabels({"Echo", "\xc3"})), StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(family->WithLabels({}).status().message(), HasSubstr("has 2 labels, given 0"));
}

TEST(RegistryTest, CollectOrdersByNameAndLeavesOutFamiliesWithoutSeries) {
  MetricsRegistry registry;
  CounterFamily* calls = *registry.AddCounter("b_calls_total", "Calls.", {"code"});
  ASSERT_TRUE(registry.AddGauge("c_unused", "No series yet.", {"pool"}).ok());
  ASSERT_TRUE(registry.AddGauge("a_plain", "Reads 0 from the start.").ok());
  (*calls->WithLabels({"OK"}))->Increment(3);

  const std::vector<FamilySnapshot> families = registry.Collect();
  ASSERT_EQ(families.size(), 2u);
  EXPECT_EQ(families[0].name, "a_plain");
  EXPECT_EQ(families[1].name, "b_calls_total");
  EXPECT_EQ(OnlyValue(families, "a_plain"), 0);
  EXPECT_EQ(OnlyValue(families, "b_calls_total"), 3);
}

}  // namespace
}  // namespace ferry::metrics
