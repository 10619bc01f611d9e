#include <algorithm>
#include <atomic>
#include <cstdint>

#include "builtin_balancers.h"
#include "candidates.h"
#include "snapshot_balancer.h"

namespace ferry::loadbalance {
namespace {

// What a provider with no latency sample yet is assumed to take per call once it has calls in
// flight: idle and unsampled it is the best choice (optimism gets it its first sample), but it
// must not soak up every call while that first sample is still on its way.
constexpr double kUnsampledLatencyNs = 1e9;

// Expected wait for a new call: latency times the queue it joins.
double Cost(const EndpointLoad& load) {
  const double in_flight = std::max(load.in_flight.load(std::memory_order_relaxed), 0);
  const auto ewma_ns = load.ewma_latency_ns.load(std::memory_order_relaxed);
  if (ewma_ns <= 0) return in_flight == 0 ? 0 : kUnsampledLatencyNs * in_flight;
  return static_cast<double>(ewma_ns) * (in_flight + 1);
}

// Power of two choices: two distinct providers drawn by weight, and the one with the lower cost
// per unit of weight wins. Comparing two rather than all keeps the pick O(log n) and stops every
// client from herding onto the single fastest provider.
class LatencyAwareBalancer final : public SnapshotBalancer<EndpointSet> {
 public:
  bool ReadsLoad() const override { return true; }

  const BalancerEndpoint* Select(const SelectRequest& request) override {
    const auto set = Current();
    if (set == nullptr) return nullptr;
    const Candidates candidates(*set, request.excluded);
    FastRandom& random = FastRandom::ForThisThread();
    const auto first = candidates.PickWeighted(random);
    if (!first) return nullptr;
    const auto second = candidates.PickWeighted(random, *first);
    if (!second) return &(*set)[*first];
    // cost_a / weight_a <= cost_b / weight_b, without dividing by a weight.
    const double first_cost = Cost(*(*set)[*first].load) * candidates.Weight(*second);
    const double second_cost = Cost(*(*set)[*second].load) * candidates.Weight(*first);
    return &(*set)[first_cost <= second_cost ? *first : *second];
  }
};

}  // namespace

void RegisterLatencyAwareBalancer(ExtensionRegistry& registry) {
  registry.Register<LoadBalancer>("latency_aware",
                                  [] { return std::make_shared<LatencyAwareBalancer>(); });
}

}  // namespace ferry::loadbalance
