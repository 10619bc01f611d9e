#include <algorithm>
#include <cstdint>

#include "ferry/framework/load_balancer.h"

namespace ferry {

uint32_t EffectiveWeight(const BalancerEndpoint& endpoint, std::chrono::milliseconds warmup,
                         int64_t now_ms) {
  const uint32_t weight = endpoint.weight;
  const int64_t age_ms = now_ms - endpoint.start_time_ms;
  // An unknown start time, or one in the future (clock skew between hosts), gives no reason to
  // hold a provider back: treating it as young would starve it for no evidence.
  if (weight == 0 || warmup.count() <= 0 || endpoint.start_time_ms <= 0 || age_ms < 0 ||
      age_ms >= warmup.count()) {
    return weight;
  }
  // The ramp starts at a tenth, not at zero, so that a young provider still gets the few calls
  // that warm its caches and connection pools.
  const uint32_t floor = weight / 10;
  // Balancers call this for every provider on every pick while warm-up lasts: 64-bit division
  // when the product fits (ages under 49 days), 128-bit otherwise.
  const uint64_t span = weight - floor;
  const auto age = static_cast<uint64_t>(age_ms);
  const auto period = static_cast<uint64_t>(warmup.count());
  const uint64_t ramp =
      age <= UINT32_MAX
          ? span * age / period
          : static_cast<uint64_t>(static_cast<unsigned __int128>(span) * age / period);
  const auto ramped = floor + static_cast<uint32_t>(ramp);
  return std::max<uint32_t>(ramped, 1);
}

}  // namespace ferry
