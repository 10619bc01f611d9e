#include <cstdint>
#include <mutex>
#include <vector>

#include "builtin_balancers.h"
#include "candidates.h"
#include "snapshot_balancer.h"

namespace ferry::loadbalance {
namespace {

bool EqualPositiveWeights(const EndpointSet& set) {
  for (size_t i = 0; i < set.size(); ++i) {
    if (set[i].weight == 0 || set[i].weight != set[0].weight) return false;
  }
  return set.size() > 0;
}

// nginx's smooth weighted round robin: every pick adds each candidate's weight to its running
// credit and takes the candidate with the most, which then pays back the total. Weights 5,1,1
// give a a b a c a a rather than a a a a a b c, so no provider gets a burst.
class SmoothRoundRobin {
 public:
  SmoothRoundRobin(std::vector<BalancerEndpoint> endpoints, const LoadBalancerOptions& options)
      : set_(std::move(endpoints), options),
        equal_weights_(EqualPositiveWeights(set_)),
        credit_(set_.size(), 0) {}

  const EndpointSet& set() const { return set_; }

  // `cursor`: the calling thread's rotation through this snapshot.
  std::optional<size_t> Next(const Candidates& candidates, uint64_t& cursor) const {
    // With equal weights, nothing excluded and nobody warming up, smooth round robin is plain
    // rotation. Each thread rotates on its own, from its own start: no lock, and no counter
    // written by every calling thread. The sum over threads is as even.
    if (equal_weights_ && candidates.unrestricted()) {
      if (cursor >= set_.size()) cursor %= set_.size();
      const size_t pick = cursor;
      cursor = pick + 1 == set_.size() ? 0 : pick + 1;
      return pick;
    }
    std::lock_guard lock(mu_);
    int64_t total = 0;
    size_t best = Candidates::kNone;
    for (size_t i = 0; i < credit_.size(); ++i) {
      const uint32_t weight = candidates.Weight(i);
      if (weight == 0) continue;
      credit_[i] += weight;
      total += weight;
      if (best == Candidates::kNone || credit_[i] > credit_[best]) best = i;
    }
    if (best == Candidates::kNone) return std::nullopt;
    credit_[best] -= total;
    return best;
  }

 private:
  EndpointSet set_;
  const bool equal_weights_;
  mutable std::mutex mu_;  // held for one O(n) pass of additions per pick
  mutable std::vector<int64_t> credit_;
};

class RoundRobinBalancer final : public SnapshotBalancer<SmoothRoundRobin> {
 public:
  const BalancerEndpoint* Select(const SelectRequest& request) override {
    uint64_t* cursor = nullptr;
    const auto state = Current(&cursor);
    if (state == nullptr) return nullptr;
    const auto pick = state->Next(Candidates(state->set(), request.excluded), *cursor);
    if (!pick) return nullptr;
    return &state->set()[*pick];
  }
};

}  // namespace

void RegisterRoundRobinBalancer(ExtensionRegistry& registry) {
  registry.Register<LoadBalancer>("round_robin",
                                  [] { return std::make_shared<RoundRobinBalancer>(); });
}

}  // namespace ferry::loadbalance
