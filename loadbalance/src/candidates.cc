#include "candidates.h"

namespace ferry::loadbalance {

std::optional<size_t> Candidates::PickWeighted(FastRandom& random, size_t skip) const {
  if (unrestricted()) return PickFromCumulative(random, skip);
  // One pass of weighted reservoir sampling (the i-th candidate replaces the pick with
  // probability weight_i / running total): a random draw is cheaper than computing a weight
  // twice.
  uint64_t total = 0;
  std::optional<size_t> pick;
  for (size_t i = 0; i < size(); ++i) {
    if (i == skip) continue;
    const uint32_t weight = Weight(i);
    if (weight == 0) continue;
    total += weight;
    if (random.Below(total) < weight) pick = i;
  }
  return pick;
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
