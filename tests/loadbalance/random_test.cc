#include <gtest/gtest.h>

#include "balancer_test_util.h"

namespace ferry::testing {
namespace {

constexpr int kPicks = 100'000;
// Shares of 100k picks have a standard deviation below 0.16 points; 1 point is over 6 of them.
constexpr double kTolerance = 0.01;

TEST(RandomTest, SharesFollowWeights) {
  auto balancer = MakeBalancer("random");
  balancer->Update(Endpoints({{"a", 100}, {"b", 200}, {"c", 300}, {"d", 400}}));
  const auto counts = CountPicks(*balancer, kPicks);
  EXPECT_NEAR(Share(counts, "a", kPicks), 0.1, kTolerance);
  EXPECT_NEAR(Share(counts, "b", kPicks), 0.2, kTolerance);
  EXPECT_NEAR(Share(counts, "c", kPicks), 0.3, kTolerance);
  EXPECT_NEAR(Share(counts, "d", kPicks), 0.4, kTolerance);
}

TEST(RandomTest, ExcludedProviderShareGoesToTheOthersByWeight) {
  auto balancer = MakeBalancer("random");
  balancer->Update(Endpoints({{"a", 100}, {"b", 200}, {"c", 300}, {"d", 400}}));
  const auto counts = CountPicks(*balancer, kPicks, false, {"d"});
  EXPECT_EQ(Share(counts, "d", kPicks), 0.0);
  EXPECT_NEAR(Share(counts, "a", kPicks), 1.0 / 6, kTolerance);
  EXPECT_NEAR(Share(counts, "b", kPicks), 2.0 / 6, kTolerance);
  EXPECT_NEAR(Share(counts, "c", kPicks), 3.0 / 6, kTolerance);
}

}  // namespace
}  // namespace ferry::testing
