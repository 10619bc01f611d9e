#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <thread>

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

// Equal weights rotate per thread, each thread from its own start: every cycle of picks on a
// thread, and so the sum over threads, gives each provider exactly its turn.
TEST(RoundRobinTest, EqualWeightsGiveEveryProviderItsTurnOnEveryThread) {
  auto balancer = MakeBalancer("round_robin");
  balancer->Update(Endpoints({{"a", 1}, {"b", 1}, {"c", 1}}));
  const std::string sequence = Sequence(*balancer, 9);
  for (size_t i = 0; i + 3 <= sequence.size(); i += 3) {
    std::string cycle = sequence.substr(i, 3);
    std::sort(cycle.begin(), cycle.end());
    EXPECT_EQ(cycle, "abc") << sequence;
  }
  PickCounts counts[2];
  std::thread other([&] { counts[1] = CountPicks(*balancer, 300); });
  counts[0] = CountPicks(*balancer, 300);
  other.join();
  for (const PickCounts& thread_counts : counts) {
    EXPECT_EQ(thread_counts, (PickCounts{{"a", 100}, {"b", 100}, {"c", 100}}));
  }
}

}  // namespace
}  // namespace ferry::testing
