#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ferry/framework/load_balancer.h"

namespace ferry::testing {

inline constexpr const char* kBalancerNames[] = {"round_robin", "random", "least_active",
                                                 "consistent_hash", "latency_aware"};

// A registered balancer, configured; fails the test when the name is unknown.
std::shared_ptr<LoadBalancer> MakeBalancer(const std::string& name,
                                           const LoadBalancerOptions& options = {});

// Endpoints with the given addresses and weights, started at an unknown time (no warm-up).
std::vector<BalancerEndpoint> Endpoints(
    const std::vector<std::pair<std::string, uint32_t>>& weights);

using PickCounts = std::map<std::string, int>;

// Picks `picks` times; "" counts picks that returned nothing. With `keyed`, pick i carries
// hash_key i so that a consistent-hash balancer spreads the picks over its ring.
PickCounts CountPicks(LoadBalancer& balancer, int picks, bool keyed = false,
                      const std::vector<std::string>& excluded = {});

double Share(const PickCounts& counts, const std::string& address, int picks);

int64_t NowMs();

}  // namespace ferry::testing
