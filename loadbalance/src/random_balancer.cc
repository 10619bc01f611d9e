#include "builtin_balancers.h"
#include "candidates.h"
#include "snapshot_balancer.h"

namespace ferry::loadbalance {
namespace {

// Each provider with probability proportional to its (warmed-up) weight. Stateless across
// picks, so it spreads load evenly with no coordination between threads or clients.
class RandomBalancer final : public SnapshotBalancer<EndpointSet> {
 public:
  const BalancerEndpoint* Select(const SelectRequest& request) override {
    const auto set = Current();
    if (set == nullptr) return nullptr;
    const Candidates candidates(*set, request.excluded);
    const auto pick = candidates.PickWeighted(FastRandom::ForThisThread());
    if (!pick) return nullptr;
    return &(*set)[*pick];
  }
};

}  // namespace

void RegisterRandomBalancer(ExtensionRegistry& registry) {
  registry.Register<LoadBalancer>("random", [] { return std::make_shared<RandomBalancer>(); });
}

}  // namespace ferry::loadbalance
