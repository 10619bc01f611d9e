#include <gtest/gtest.h>

#include <string>

#include "balancer_test_util.h"

namespace ferry::testing {
namespace {

std::string Sequence(LoadBalancer& balancer, int picks,
                     const std::vector<std::string>& excluded = {}) {
  SelectRequest request;
  request.excluded = excluded;
  std::string sequence;
  for (int i = 0; i < picks; ++i) {
    const auto pick = balancer.Select(request);
    sequence += pick ? pick->address : "-";
  }
  return sequence;
}

TEST(RoundRobinTest, InterleavesHeavyAndLightProvidersSmoothly) {
  auto balancer = MakeBalancer("round_robin");
  balancer->Update(Endpoints({{"a", 5}, {"b", 1}, {"c", 1}}));
  EXPECT_EQ(Sequence(*balancer, 14), "aabacaaaabacaa");
}

TEST(RoundRobinTest, EveryCycleGivesExactlyTheWeightedShares) {
  auto balancer = MakeBalancer("round_robin");
  balancer->Update(Endpoints({{"a", 300}, {"b", 200}, {"c", 100}}));
  const auto counts = CountPicks(*balancer, 6 * 1000);
  EXPECT_EQ(counts, (PickCounts{{"a", 3000}, {"b", 2000}, {"c", 1000}}));
}

TEST(RoundRobinTest, ExcludedProviderLeavesTheOthersInTurn) {
  auto balancer = MakeBalancer("round_robin");
  balancer->Update(Endpoints({{"a", 5}, {"b", 1}, {"c", 1}}));
  EXPECT_EQ(Sequence(*balancer, 6, {"a"}), "bcbcbc");
}

}  // namespace
}  // namespace ferry::testing
