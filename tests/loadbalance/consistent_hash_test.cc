#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "balancer_test_util.h"
#include "ferry/codec/extension_registry.h"
#include "ferry/framework/hash_key.h"

namespace ferry::testing {
namespace {

constexpr int kKeys = 100'000;

std::vector<BalancerEndpoint> Providers(int count) {
  std::vector<std::pair<std::string, uint32_t>> weights;
  for (int i = 0; i < count; ++i)
    weights.emplace_back("10.0.0." + std::to_string(i) + ":7001", 100);
  return Endpoints(weights);
}

// The owner of each of kKeys field values, hashed as the channel hashes a request field.
std::vector<std::string> Owners(LoadBalancer& balancer,
                                const std::vector<std::string>& excluded = {}) {
  std::vector<std::string> owners;
  owners.reserve(kKeys);
  SelectRequest request;
  request.excluded = excluded;
  for (int i = 0; i < kKeys; ++i) {
    request.hash_key = HashKey("user-" + std::to_string(i));
    const auto pick = balancer.Select(request);
    owners.push_back(pick ? pick->address : "");
  }
  return owners;
}

std::shared_ptr<LoadBalancer> Ring(std::vector<BalancerEndpoint> endpoints) {
  auto balancer = MakeBalancer("consistent_hash");
  balancer->Update(std::move(endpoints));
  return balancer;
}

TEST(ConsistentHashTest, SameKeySameProviderAcrossPicksClientsAndOrder) {
  auto endpoints = Providers(10);
  const auto owners = Owners(*Ring(endpoints));
  auto ring = Ring(endpoints);
  EXPECT_EQ(Owners(*ring), owners);
  EXPECT_EQ(Owners(*ring), owners);
  // Another client that lists the providers in another order builds the same ring.
  std::reverse(endpoints.begin(), endpoints.end());
  EXPECT_EQ(Owners(*Ring(endpoints)), owners);
}

TEST(ConsistentHashTest, KeysSpreadByWeight) {
  auto endpoints = Providers(10);
  endpoints[0].weight = 200;
  const auto owners = Owners(*Ring(endpoints));
  for (size_t i = 0; i < endpoints.size(); ++i) {
    const double share =
        static_cast<double>(std::count(owners.begin(), owners.end(), endpoints[i].address)) / kKeys;
    EXPECT_NEAR(share, (i == 0 ? 2.0 : 1.0) / 11, 0.03) << endpoints[i].address;
  }
}

TEST(ConsistentHashTest, SmallIntegerKeysSpreadOverTheRing) {
  auto balancer = Ring(Providers(10));
  const auto counts = CountPicks(*balancer, 10'000, /*keyed=*/true);
  EXPECT_EQ(counts.size(), 10u);
  for (const auto& [address, count] : counts) EXPECT_GT(count, 500) << address;
}

TEST(ConsistentHashTest, AddingOneProviderMovesAboutOneInNPlusOneKeysAllToIt) {
  constexpr int kProviders = 10;
  auto endpoints = Providers(kProviders + 1);
  const BalancerEndpoint added = endpoints.back();
  endpoints.pop_back();
  auto balancer = Ring(endpoints);
  const auto before = Owners(*balancer);
  endpoints.push_back(added);
  balancer->Update(endpoints);
  const auto after = Owners(*balancer);

  int moved = 0;
  for (int i = 0; i < kKeys; ++i) {
    if (before[i] == after[i]) continue;
    ++moved;
    EXPECT_EQ(after[i], added.address) << "key " << i << " moved between old providers";
  }
  const double expected = static_cast<double>(kKeys) / (kProviders + 1);
  EXPECT_GT(moved, 0.5 * expected);
  EXPECT_LT(moved, 1.5 * expected);
}

TEST(ConsistentHashTest, RemovingAProviderMovesOnlyItsKeys) {
  auto endpoints = Providers(10);
  auto balancer = Ring(endpoints);
  const auto before = Owners(*balancer);
  const std::string removed = endpoints[3].address;
  endpoints.erase(endpoints.begin() + 3);
  balancer->Update(endpoints);
  const auto after = Owners(*balancer);
  for (int i = 0; i < kKeys; ++i) {
    if (before[i] == removed) {
      EXPECT_NE(after[i], removed);
    } else {
      EXPECT_EQ(after[i], before[i]) << "key " << i;
    }
  }
}

TEST(ConsistentHashTest, ExcludedOwnerIsPassedOverAsIfItHadLeft) {
  auto endpoints = Providers(10);
  const std::vector<std::string> excluded = {endpoints[3].address, endpoints[7].address};
  const auto with_exclusion = Owners(*Ring(endpoints), excluded);
  std::erase_if(endpoints, [&](const BalancerEndpoint& endpoint) {
    return std::find(excluded.begin(), excluded.end(), endpoint.address) != excluded.end();
  });
  EXPECT_EQ(with_exclusion, Owners(*Ring(endpoints)));
}

TEST(ConsistentHashTest, WarmingProviderServesAGrowingSubsetOfItsKeys) {
  const auto now = NowMs();
  LoadBalancerOptions options;
  options.warmup = std::chrono::minutes(10);
  auto endpoints = Providers(10);
  BalancerEndpoint& young = endpoints[0];

  auto at = [&](int64_t start_time_ms) {
    young.start_time_ms = start_time_ms;
    auto balancer = MakeBalancer("consistent_hash", options);
    balancer->Update(endpoints);
    return Owners(*balancer);
  };
  const auto warm = at(now - std::chrono::milliseconds(options.warmup).count() - 1000);
  const auto started = at(now);
  const auto halfway = at(now - std::chrono::milliseconds(options.warmup).count() / 2);

  const auto young_keys = [&](const std::vector<std::string>& owners) {
    return std::count(owners.begin(), owners.end(), young.address);
  };
  // ~10% and ~55% of its warm share, and only keys it owns when warm.
  EXPECT_NEAR(static_cast<double>(young_keys(started)) / young_keys(warm), 0.10, 0.03);
  EXPECT_NEAR(static_cast<double>(young_keys(halfway)) / young_keys(warm), 0.55, 0.05);
  for (int i = 0; i < kKeys; ++i) {
    if (started[i] == young.address) {
      EXPECT_EQ(halfway[i], young.address) << "key " << i;
    }
    if (halfway[i] == young.address) {
      EXPECT_EQ(warm[i], young.address) << "key " << i;
    }
    if (warm[i] != young.address) {
      EXPECT_EQ(halfway[i], warm[i]) << "key " << i;
    }
  }
}

TEST(ConsistentHashTest, WholeClusterWarmingTogetherStillSpreadsEveryKey) {
  LoadBalancerOptions options;
  options.warmup = std::chrono::minutes(10);
  auto endpoints = Providers(10);
  for (auto& endpoint : endpoints) endpoint.start_time_ms = NowMs();
  auto balancer = MakeBalancer("consistent_hash", options);
  balancer->Update(endpoints);
  const auto owners = Owners(*balancer);
  for (const auto& endpoint : endpoints) {
    const double share =
        static_cast<double>(std::count(owners.begin(), owners.end(), endpoint.address)) / kKeys;
    EXPECT_NEAR(share, 0.1, 0.04) << endpoint.address;
  }
  EXPECT_EQ(std::count(owners.begin(), owners.end(), ""), 0);
}

TEST(ConsistentHashTest, CallWithoutKeyIsSpreadRandomly) {
  auto balancer = Ring(Providers(4));
  const auto counts = CountPicks(*balancer, 10'000);
  EXPECT_EQ(counts.size(), 4u);
  for (const auto& [address, count] : counts) EXPECT_NEAR(count, 2500, 300) << address;
}

TEST(ConsistentHashTest, ZeroVirtualNodesIsRejected) {
  auto balancer = ExtensionRegistry::Instance().Create<LoadBalancer>("consistent_hash");
  ASSERT_NE(balancer, nullptr);
  LoadBalancerOptions options;
  options.virtual_nodes = 0;
  EXPECT_EQ(balancer->Configure(options).code(), StatusCode::INVALID_ARGUMENT);
}

}  // namespace
}  // namespace ferry::testing
