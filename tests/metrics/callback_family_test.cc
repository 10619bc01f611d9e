#include "ferry/framework/metrics/callback_family.h"

#include <gtest/gtest.h>

#include "ferry/framework/metrics/registry.h"
#include "metrics_test_util.h"

namespace ferry::metrics {
namespace {

TEST(CallbackFamilyTest, ReadsEachBoundSeriesAtEveryCollect) {
  MetricsRegistry registry;
  CallbackFamily* family = *registry.AddGaugeCallback("queue_depth", "Depth.", {"pool"});
  double depth = 3;
  Result<CallbackHandle> handle = family->Bind({"business"}, [&] { return depth; });
  ASSERT_TRUE(handle.ok());
  EXPECT_EQ(OnlyValue(registry.Collect(), "queue_depth"), 3);
  depth = 5;
  EXPECT_EQ(OnlyValue(registry.Collect(), "queue_depth"), 5);
}

TEST(CallbackFamilyTest, ResettingTheHandleUnbindsTheSeries) {
  MetricsRegistry registry;
  CallbackFamily* family = *registry.AddGaugeCallback("connections", "Open.", {"protocol"});
  Result<CallbackHandle> ferry = family->Bind({"ferry"}, [] { return 2.0; });
  Result<CallbackHandle> http = family->Bind({"http"}, [] { return 1.0; });
  ASSERT_TRUE(ferry.ok() && http.ok());
  ASSERT_EQ(family->Collect().series.size(), 2u);
  ferry->Reset();
  const FamilySnapshot snapshot = family->Collect();
  ASSERT_EQ(snapshot.series.size(), 1u);
  EXPECT_EQ(snapshot.series[0].label_values, std::vector<std::string>{"http"});
  http->Reset();
  EXPECT_TRUE(registry.Collect().empty());
}

TEST(CallbackFamilyTest, RefusesValuesBoundTwiceUntilUnbound) {
  MetricsRegistry registry;
  CallbackFamily* family = *registry.AddGaugeCallback("queue_depth", "Depth.", {"pool"});
  Result<CallbackHandle> first = family->Bind({"business"}, [] { return 1.0; });
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(family->Bind({"business"}, [] { return 2.0; }).status().code(),
            StatusCode::ALREADY_EXISTS);
  first->Reset();
  EXPECT_TRUE(family->Bind({"business"}, [] { return 2.0; }).ok());
}

TEST(CallbackFamilyTest, RefusesAWrongNumberOfLabelValues) {
  MetricsRegistry registry;
  CallbackFamily* family = *registry.AddGaugeCallback("queue_depth", "Depth.", {"pool"});
  EXPECT_EQ(family->Bind({}, [] { return 1.0; }).status().code(), StatusCode::INVALID_ARGUMENT);
}

TEST(CallbackFamilyTest, AMovedHandleKeepsTheBinding) {
  MetricsRegistry registry;
  CallbackFamily* family = *registry.AddCounterCallback("cpu_seconds_total", "CPU.");
  CallbackHandle kept;
  {
    Result<CallbackHandle> handle = family->Bind({}, [] { return 1.5; });
    ASSERT_TRUE(handle.ok());
    kept = std::move(*handle);
  }
  EXPECT_EQ(OnlyValue(registry.Collect(), "cpu_seconds_total"), 1.5);
  kept.Reset();
  EXPECT_TRUE(family->Collect().series.empty());
}

}  // namespace
}  // namespace ferry::metrics
