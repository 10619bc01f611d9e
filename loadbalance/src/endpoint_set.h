#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "ferry/framework/load_balancer.h"

namespace ferry::loadbalance {

// The providers of one Update(), immutable once built, with what every pick needs precomputed:
// configured weights and their running sums, and the moment warm-up ends for all of them.
class EndpointSet {
 public:
  EndpointSet(std::vector<BalancerEndpoint> endpoints, const LoadBalancerOptions& options);

  size_t size() const { return endpoints_.size(); }
  const BalancerEndpoint& operator[](size_t i) const { return endpoints_[i]; }
  std::chrono::milliseconds warmup() const { return warmup_; }

  // cumulative_weights()[i] is the sum of the configured weights of endpoints 0..i.
  std::span<const uint64_t> cumulative_weights() const { return cumulative_weights_; }
  uint64_t total_weight() const {
    return cumulative_weights_.empty() ? 0 : cumulative_weights_.back();
  }

  // Whether some endpoint may still be warming up; if so, *now_ms is set to the current time.
  // Once warm-up has ended for all, this stops reading the clock.
  // Inline: after warm-up, every pick asks this and gets false.
  bool Warming(int64_t* now_ms) const {
    return !warm_.load(std::memory_order_relaxed) && StillWarming(now_ms);
  }

 private:
  bool StillWarming(int64_t* now_ms) const;

  std::vector<BalancerEndpoint> endpoints_;
  std::chrono::milliseconds warmup_;
  std::vector<uint64_t> cumulative_weights_;
  int64_t warm_until_ms_ = 0;
  mutable std::atomic<bool> warm_{false};
};

}  // namespace ferry::loadbalance
