#include "balancer_test_util.h"

#include <gtest/gtest.h>

#include <chrono>

#include "ferry/codec/extension_registry.h"

namespace ferry::testing {

std::shared_ptr<LoadBalancer> MakeBalancer(const std::string& name,
                                           const LoadBalancerOptions& options) {
  auto balancer = ExtensionRegistry::Instance().Create<LoadBalancer>(name);
  EXPECT_NE(balancer, nullptr) << name;
  if (balancer != nullptr) {
    EXPECT_TRUE(balancer->Configure(options).ok()) << name;
  }
  return balancer;
}

std::vector<BalancerEndpoint> Endpoints(
    const std::vector<std::pair<std::string, uint32_t>>& weights) {
  std::vector<BalancerEndpoint> endpoints;
  for (const auto& [address, weight] : weights) {
    BalancerEndpoint endpoint;
    endpoint.address = address;
    endpoint.weight = weight;
    endpoints.push_back(std::move(endpoint));
  }
  return endpoints;
}

PickCounts CountPicks(LoadBalancer& balancer, int picks, bool keyed,
                      const std::vector<std::string>& excluded) {
  PickCounts counts;
  SelectRequest request;
  request.excluded = excluded;
  for (int i = 0; i < picks; ++i) {
    if (keyed) request.hash_key = static_cast<uint64_t>(i);
    const auto pick = balancer.Select(request);
    ++counts[pick ? pick->address : ""];
  }
  return counts;
}

double Share(const PickCounts& counts, const std::string& address, int picks) {
  const auto it = counts.find(address);
  return it == counts.end() ? 0.0 : static_cast<double>(it->second) / picks;
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace ferry::testing
