#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "endpoint_set.h"
#include "fast_random.h"

namespace ferry::loadbalance {

// One pick's view of an EndpointSet: which endpoints this call may use and what each is worth
// right now. Lives on the stack of a Select(); when nothing is excluded and warm-up is over it
// answers from the set's precomputed weights without touching the endpoints.
class Candidates {
 public:
  static constexpr size_t kNone = static_cast<size_t>(-1);

  Candidates(const EndpointSet& set, std::span<const std::string> excluded)
      : set_(set), excluded_(excluded), warming_(set.Warming(&now_ms_)) {}

  const EndpointSet& set() const { return set_; }
  size_t size() const { return set_.size(); }
  // Neither excluded nor warming: the set's configured weights are the effective ones.
  bool unrestricted() const { return excluded_.empty() && !warming_; }

  // The effective weight of endpoint i for this call; 0 when it must not be chosen.
  uint32_t Weight(size_t i) const {
    const BalancerEndpoint& endpoint = set_[i];
    if (!excluded_.empty() &&
        std::find(excluded_.begin(), excluded_.end(), endpoint.address) != excluded_.end()) {
      return 0;
    }
    return warming_ ? EffectiveWeight(endpoint, set_.warmup(), now_ms_) : endpoint.weight;
  }

  // An endpoint drawn with probability proportional to Weight(), never `skip`; nullopt when no
  // other endpoint has a positive weight.
  std::optional<size_t> PickWeighted(FastRandom& random, size_t skip = kNone) const;

 private:
  std::optional<size_t> PickFromCumulative(FastRandom& random, size_t skip) const;
  std::optional<size_t> PickByScan(FastRandom& random, size_t skip) const;

  const EndpointSet& set_;
  std::span<const std::string> excluded_;
  int64_t now_ms_ = 0;
  bool warming_;
};

}  // namespace ferry::loadbalance
