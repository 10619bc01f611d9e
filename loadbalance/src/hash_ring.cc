#include "hash_ring.h"

#include <algorithm>
#include <utility>

#include "ferry/framework/hash_key.h"

namespace ferry::loadbalance {
namespace {

// Weights above this count as this on the ring, so that one mistyped weight cannot make a
// client allocate billions of points.
constexpr uint64_t kMaxRingWeight = 10000;
constexpr uint64_t kPointStride = 0x9e3779b97f4a7c15ULL;
// A key passes over at most this many points of warming endpoints; then the first of them keeps
// it. Without a bound, a key that every endpoint declines (all of them restarted together)
// would walk the whole ring on every pick.
constexpr int kMaxWarmupPasses = 8;

uint64_t PointCount(uint32_t weight, uint32_t virtual_nodes) {
  if (weight == 0) return 0;
  const uint64_t scaled = (std::min<uint64_t>(weight, kMaxRingWeight) * virtual_nodes + 50) / 100;
  return std::max<uint64_t>(scaled, 1);
}

// Whether a warming endpoint at `effective` of its `full` weight keeps the key at `position`.
// The coin is fixed per key and endpoint, so a kept key stays kept as the weight grows, and
// the endpoint answers alike at each of its points.
bool KeptWhileWarming(uint64_t position, uint64_t endpoint_seed, uint32_t effective,
                      uint32_t full) {
  const uint64_t coin = Mix64(position ^ endpoint_seed) >> 32;
  return coin * full < (static_cast<uint64_t>(effective) << 32);
}

}  // namespace

HashRing::HashRing(std::vector<BalancerEndpoint> endpoints, const LoadBalancerOptions& options)
    : set_(std::move(endpoints), options) {
  seeds_.reserve(set_.size());
  for (size_t i = 0; i < set_.size(); ++i) {
    // SplitMix64's sequence seeded by the address: well-spread positions without formatting a
    // string per virtual node.
    const uint64_t seed = HashKey(set_[i].address);
    seeds_.push_back(seed);
    const uint64_t count = PointCount(set_[i].weight, options.virtual_nodes);
    for (uint64_t replica = 1; replica <= count; ++replica) {
      points_.push_back({Mix64(seed + replica * kPointStride), static_cast<uint32_t>(i)});
    }
  }
  std::sort(points_.begin(), points_.end(), [this](const Point& a, const Point& b) {
    if (a.position != b.position) return a.position < b.position;
    return set_[a.endpoint].address < set_[b.endpoint].address;
  });
}

std::optional<size_t> HashRing::Owner(uint64_t key, const Candidates& candidates) const {
  if (points_.empty()) return std::nullopt;
  // Callers' keys may be small integers; mixing spreads them over the whole circle.
  const uint64_t position = Mix64(key);
  size_t index = static_cast<size_t>(
      std::lower_bound(points_.begin(), points_.end(), position,
                       [](const Point& point, uint64_t p) { return point.position < p; }) -
      points_.begin());
  std::optional<size_t> first_passed;
  int passes = 0;
  for (size_t step = 0; step < points_.size(); ++step, ++index) {
    if (index == points_.size()) index = 0;
    const Point& point = points_[index];
    const uint32_t effective = candidates.Weight(point.endpoint);
    if (effective == 0) continue;
    const uint32_t full = set_[point.endpoint].weight;
    if (effective >= full || KeptWhileWarming(position, seeds_[point.endpoint], effective, full)) {
      return point.endpoint;
    }
    if (!first_passed) first_passed = point.endpoint;
    if (++passes == kMaxWarmupPasses) break;
  }
  return first_passed;
}

}  // namespace ferry::loadbalance
