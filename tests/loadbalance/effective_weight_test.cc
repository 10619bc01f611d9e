#include <gtest/gtest.h>

#include <chrono>

#include "ferry/framework/load_balancer.h"

namespace ferry {
namespace {

using std::chrono::milliseconds;

constexpr int64_t kStartMs = 1'700'000'000'000;
constexpr milliseconds kWarmup{10'000};

BalancerEndpoint StartedAt(int64_t start_time_ms, uint32_t weight = 100) {
  BalancerEndpoint endpoint;
  endpoint.address = "127.0.0.1:7001";
  endpoint.weight = weight;
  endpoint.start_time_ms = start_time_ms;
  return endpoint;
}

TEST(EffectiveWeightTest, RampsLinearlyFromATenthToFullWeight) {
  const auto endpoint = StartedAt(kStartMs);
  EXPECT_EQ(EffectiveWeight(endpoint, kWarmup, kStartMs), 10u);
  EXPECT_EQ(EffectiveWeight(endpoint, kWarmup, kStartMs + 5'000), 55u);
  EXPECT_EQ(EffectiveWeight(endpoint, kWarmup, kStartMs + 9'000), 91u);
  EXPECT_EQ(EffectiveWeight(endpoint, kWarmup, kStartMs + 10'000), 100u);
  EXPECT_EQ(EffectiveWeight(endpoint, kWarmup, kStartMs + 3'600'000), 100u);
}

TEST(EffectiveWeightTest, FullWeightWithoutWarmupOrKnownPastStart) {
  EXPECT_EQ(EffectiveWeight(StartedAt(kStartMs), milliseconds(0), kStartMs), 100u);
  EXPECT_EQ(EffectiveWeight(StartedAt(0), kWarmup, kStartMs), 100u);
  // Started "in the future": the provider's clock is ahead of ours.
  EXPECT_EQ(EffectiveWeight(StartedAt(kStartMs + 1'000), kWarmup, kStartMs), 100u);
}

TEST(EffectiveWeightTest, PositiveWeightNeverRampsToZero) {
  EXPECT_EQ(EffectiveWeight(StartedAt(kStartMs, 1), kWarmup, kStartMs), 1u);
  EXPECT_EQ(EffectiveWeight(StartedAt(kStartMs, 9), kWarmup, kStartMs), 1u);
  EXPECT_EQ(EffectiveWeight(StartedAt(kStartMs, 0), kWarmup, kStartMs + 20'000), 0u);
}

TEST(EffectiveWeightTest, LargeWeightsAndLongWarmupsDoNotOverflow) {
  const auto endpoint = StartedAt(kStartMs, 4'000'000'000u);
  const milliseconds year{365LL * 24 * 3600 * 1000};
  EXPECT_EQ(EffectiveWeight(endpoint, year, kStartMs + year.count() / 2), 2'200'000'000u);
}

}  // namespace
}  // namespace ferry
