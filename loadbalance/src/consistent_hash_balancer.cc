#include "builtin_balancers.h"
#include "hash_ring.h"
#include "snapshot_balancer.h"

namespace ferry::loadbalance {
namespace {

// Calls with the same key go to the same provider while the provider set is stable, which keeps
// per-key caches and sessions on one host. A call without a key has no affinity to keep and is
// spread by weighted random.
class ConsistentHashBalancer final : public SnapshotBalancer<HashRing> {
 public:
  const BalancerEndpoint* Select(const SelectRequest& request) override {
    const auto ring = Current();
    if (ring == nullptr) return nullptr;
    const Candidates candidates(ring->set(), request.excluded);
    const auto pick = request.hash_key ? ring->Owner(*request.hash_key, candidates)
                                       : candidates.PickWeighted(FastRandom::ForThisThread());
    if (!pick) return nullptr;
    return &ring->set()[*pick];
  }

 protected:
  Status Validate(const LoadBalancerOptions& options) const override {
    if (options.virtual_nodes == 0) {
      return Status(StatusCode::INVALID_ARGUMENT,
                    "loadbalance.consistent_hash.virtual_nodes must be positive");
    }
    return Status::Ok();
  }
};

}  // namespace

void RegisterConsistentHashBalancer(ExtensionRegistry& registry) {
  registry.Register<LoadBalancer>("consistent_hash",
                                  [] { return std::make_shared<ConsistentHashBalancer>(); });
}

}  // namespace ferry::loadbalance
