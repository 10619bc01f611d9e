#include <gtest/gtest.h>

#include "balancer_test_util.h"

namespace ferry::testing {
namespace {

constexpr int kPicks = 100'000;
constexpr double kTolerance = 0.01;  // over 6 standard deviations of a share of 100k picks

TEST(LeastActiveTest, AlwaysPicksTheLeastLoaded) {
  auto balancer = MakeBalancer("least_active");
  auto endpoints = Endpoints({{"a", 100}, {"b", 100}, {"c", 100}});
  endpoints[0].load->in_flight = 5;
  endpoints[1].load->in_flight = 1;
  endpoints[2].load->in_flight = 3;
  // Weight does not buy a busier provider any calls.
  endpoints[0].weight = 1000;
  const auto loads = endpoints;
  balancer->Update(endpoints);
  EXPECT_EQ(CountPicks(*balancer, 1000), (PickCounts{{"b", 1000}}));

  // Loads are read live at every pick, not at Update().
  loads[1].load->in_flight = 7;
  EXPECT_EQ(CountPicks(*balancer, 1000), (PickCounts{{"c", 1000}}));
}

TEST(LeastActiveTest, TiesAreBrokenByWeight) {
  auto balancer = MakeBalancer("least_active");
  auto endpoints = Endpoints({{"a", 100}, {"b", 300}, {"c", 100}});
  endpoints[2].load->in_flight = 1;
  balancer->Update(endpoints);
  const auto counts = CountPicks(*balancer, kPicks);
  EXPECT_NEAR(Share(counts, "a", kPicks), 0.25, kTolerance);
  EXPECT_NEAR(Share(counts, "b", kPicks), 0.75, kTolerance);
  EXPECT_EQ(Share(counts, "c", kPicks), 0.0);
}

}  // namespace
}  // namespace ferry::testing
