#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "balancer_test_util.h"
#include "ferry/codec/extension_registry.h"

namespace ferry::testing {
namespace {

// What every balancer promises the channel, whatever its policy.
class BalancerContractTest : public ::testing::TestWithParam<const char*> {
 protected:
  std::shared_ptr<LoadBalancer> Make(const LoadBalancerOptions& options = {}) {
    return MakeBalancer(GetParam(), options);
  }
};

TEST(BalancerRegistryTest, UnknownNameIsNotRegistered) {
  EXPECT_EQ(ExtensionRegistry::Instance().Create<LoadBalancer>("nope"), nullptr);
}

TEST_P(BalancerContractTest, NothingToPickBeforeUpdateOrFromAnEmptySet) {
  auto balancer = Make();
  EXPECT_EQ(balancer->Select({}), nullptr);
  balancer->Update({});
  EXPECT_EQ(balancer->Select({}), nullptr);
}

TEST_P(BalancerContractTest, NextPickSeesTheUpdate) {
  auto balancer = Make();
  balancer->Update(Endpoints({{"old", 100}}));
  EXPECT_EQ(balancer->Select({})->address, "old");
  balancer->Update(Endpoints({{"new", 100}}));
  EXPECT_EQ(CountPicks(*balancer, 100, /*keyed=*/true), (PickCounts{{"new", 100}}));
}

// Balancers cache their snapshots per thread in a fixed number of shared slots; many balancers
// used in turn by one thread must still each pick from their own providers.
TEST_P(BalancerContractTest, ManyBalancersOnOneThreadKeepTheirOwnProviders) {
  constexpr int kBalancers = 40;
  std::vector<std::shared_ptr<LoadBalancer>> balancers;
  for (int i = 0; i < kBalancers; ++i) {
    balancers.push_back(Make());
    balancers.back()->Update(Endpoints({{std::to_string(i), 100}}));
  }
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < kBalancers; ++i) {
      const auto pick = balancers[i]->Select({});
      ASSERT_TRUE(pick);
      EXPECT_EQ(pick->address, std::to_string(i));
    }
  }
}

TEST_P(BalancerContractTest, ExcludedProviderIsNeverChosen) {
  auto balancer = Make();
  balancer->Update(Endpoints({{"a", 100}, {"b", 500}, {"c", 100}}));
  const auto keyed = CountPicks(*balancer, 5000, /*keyed=*/true, {"b"});
  const auto unkeyed = CountPicks(*balancer, 5000, /*keyed=*/false, {"b"});
  EXPECT_FALSE(keyed.contains("b"));
  EXPECT_FALSE(unkeyed.contains("b"));
  EXPECT_FALSE(keyed.contains("")) << "a and c were eligible";
  EXPECT_FALSE(unkeyed.contains(""));
}

TEST_P(BalancerContractTest, NothingToPickWhenEveryProviderIsExcluded) {
  auto balancer = Make();
  balancer->Update(Endpoints({{"a", 100}, {"b", 100}}));
  EXPECT_EQ(CountPicks(*balancer, 100, /*keyed=*/true, {"b", "a"}), (PickCounts{{"", 100}}));
  EXPECT_EQ(CountPicks(*balancer, 100, /*keyed=*/false, {"b", "a"}), (PickCounts{{"", 100}}));
}

TEST_P(BalancerContractTest, ZeroWeightProviderIsNeverChosen) {
  auto balancer = Make();
  balancer->Update(Endpoints({{"a", 100}, {"drained", 0}}));
  EXPECT_EQ(CountPicks(*balancer, 1000, /*keyed=*/true), (PickCounts{{"a", 1000}}));
  EXPECT_EQ(CountPicks(*balancer, 1000), (PickCounts{{"a", 1000}}));
}

TEST_P(BalancerContractTest, ChosenProviderSharesItsLoadWithTheCaller) {
  auto balancer = Make();
  const auto endpoints = Endpoints({{"a", 100}});
  balancer->Update(endpoints);
  const auto pick = balancer->Select({});
  ASSERT_TRUE(pick);
  EXPECT_EQ(pick->load, endpoints[0].load);
}

TEST_P(BalancerContractTest, YoungProviderGetsASmallShareUntilWarm) {
  constexpr int kPicks = 20'000;
  LoadBalancerOptions options;
  options.warmup = std::chrono::minutes(10);
  auto endpoints = Endpoints({{"a", 100}, {"b", 100}, {"c", 100}, {"d", 100}, {"young", 100}});

  endpoints.back().start_time_ms = NowMs();
  auto balancer = Make(options);
  balancer->Update(endpoints);
  // At a tenth of its weight: 10 / 410 of the picks, about 2.4%.
  const double young_share = Share(CountPicks(*balancer, kPicks, true), "young", kPicks);
  EXPECT_GT(young_share, 0.005);
  EXPECT_LT(young_share, 0.05);

  endpoints.back().start_time_ms = NowMs() - options.warmup.count() - 1000;
  balancer->Update(endpoints);
  EXPECT_NEAR(Share(CountPicks(*balancer, kPicks, true), "young", kPicks), 0.2, 0.05);
}

TEST_P(BalancerContractTest, NegativeWarmupIsRejected) {
  auto balancer = ExtensionRegistry::Instance().Create<LoadBalancer>(GetParam());
  ASSERT_NE(balancer, nullptr);
  LoadBalancerOptions options;
  options.warmup = std::chrono::milliseconds(-1);
  EXPECT_EQ(balancer->Configure(options).code(), StatusCode::INVALID_ARGUMENT);
}

INSTANTIATE_TEST_SUITE_P(AllBalancers, BalancerContractTest, ::testing::ValuesIn(kBalancerNames),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace ferry::testing
