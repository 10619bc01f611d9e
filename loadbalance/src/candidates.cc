#include "candidates.h"

namespace ferry::loadbalance {

std::optional<size_t> Candidates::PickWeighted(FastRandom& random, size_t skip) const {
  if (unrestricted()) return PickFromCumulative(random, skip);
  uint64_t total = 0;
  for (size_t i = 0; i < size(); ++i) {
    if (i != skip) total += Weight(i);
  }
  if (total == 0) return std::nullopt;
  uint64_t point = random.Below(total);
  for (size_t i = 0; i < size(); ++i) {
    if (i == skip) continue;
    const uint32_t weight = Weight(i);
    if (point < weight) return i;
    point -= weight;
  }
  return std::nullopt;  // unreachable: the weights sum to more than `point`
}

// O(log n): a binary search over running sums, with `skip`'s span cut out of the range drawn.
std::optional<size_t> Candidates::PickFromCumulative(FastRandom& random, size_t skip) const {
  const auto cumulative = set_.cumulative_weights();
  uint64_t total = set_.total_weight();
  uint64_t skip_begin = 0;
  uint64_t skip_weight = 0;
  if (skip != kNone) {
    skip_weight = set_[skip].weight;
    skip_begin = cumulative[skip] - skip_weight;
    total -= skip_weight;
  }
  if (total == 0) return std::nullopt;
  uint64_t point = random.Below(total);
  if (point >= skip_begin) point += skip_weight;
  return static_cast<size_t>(std::upper_bound(cumulative.begin(), cumulative.end(), point) -
                             cumulative.begin());
}

}  // namespace ferry::loadbalance
