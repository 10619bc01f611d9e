#include "endpoint_set.h"

#include <algorithm>
#include <memory>
#include <utility>

namespace ferry::loadbalance {

EndpointSet::EndpointSet(std::vector<BalancerEndpoint> endpoints,
                         const LoadBalancerOptions& options)
    : endpoints_(std::move(endpoints)), warmup_(options.warmup) {
  cumulative_weights_.reserve(endpoints_.size());
  uint64_t sum = 0;
  for (auto& endpoint : endpoints_) {
    // Least-active and latency-aware read the load unconditionally.
    if (endpoint.load == nullptr) endpoint.load = std::make_shared<EndpointLoad>();
    sum += endpoint.weight;
    cumulative_weights_.push_back(sum);
    if (warmup_.count() > 0 && endpoint.start_time_ms > 0) {
      warm_until_ms_ = std::max(warm_until_ms_, endpoint.start_time_ms + warmup_.count());
    }
  }
  warm_.store(warm_until_ms_ == 0, std::memory_order_relaxed);
}

bool EndpointSet::StillWarming(int64_t* now_ms) const {
  *now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                std::chrono::system_clock::now().time_since_epoch())
                .count();
  if (*now_ms < warm_until_ms_) return true;
  warm_.store(true, std::memory_order_relaxed);
  return false;
}

}  // namespace ferry::loadbalance
