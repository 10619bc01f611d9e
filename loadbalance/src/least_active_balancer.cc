#include <atomic>
#include <cstdint>

#include "builtin_balancers.h"
#include "candidates.h"
#include "snapshot_balancer.h"

namespace ferry::loadbalance {
namespace {

// The provider with the fewest calls in flight; among equally loaded ones, a weighted random
// choice. Slow providers accumulate calls in flight, so they are avoided without any timing.
class LeastActiveBalancer final : public SnapshotBalancer<EndpointSet> {
 public:
  bool ReadsLoad() const override { return true; }

  const BalancerEndpoint* Select(const SelectRequest& request) override {
    const auto set = Current();
    if (set == nullptr) return nullptr;
    const Candidates candidates(*set, request.excluded);
    FastRandom& random = FastRandom::ForThisThread();
    // One pass, breaking ties by weighted reservoir sampling: the k-th tied endpoint replaces
    // the choice with probability weight / (sum of tied weights so far).
    size_t best = Candidates::kNone;
    int32_t least = 0;
    uint64_t tied_weight = 0;
    for (size_t i = 0; i < candidates.size(); ++i) {
      const uint32_t weight = candidates.Weight(i);
      if (weight == 0) continue;
      const int32_t active = (*set)[i].load->in_flight.load(std::memory_order_relaxed);
      if (best == Candidates::kNone || active < least) {
        best = i;
        least = active;
        tied_weight = weight;
      } else if (active == least) {
        tied_weight += weight;
        if (random.Below(tied_weight) < weight) best = i;
      }
    }
    if (best == Candidates::kNone) return nullptr;
    return &(*set)[best];
  }
};

}  // namespace

void RegisterLeastActiveBalancer(ExtensionRegistry& registry) {
  registry.Register<LoadBalancer>("least_active",
                                  [] { return std::make_shared<LeastActiveBalancer>(); });
}

}  // namespace ferry::loadbalance
