#include "candidates.h"

namespace ferry::loadbalance {

namespace {

// Draws before PickWeighted gives up on rejection sampling and scans. A draw is rejected only
// for an excluded or a young endpoint, so more than a few in a row means most candidates are.
constexpr int kMaxDraws = 4;

}  // namespace

// Rejection sampling: draw by configured weight in O(log n) and keep the draw with probability
// effective / configured weight (0 when excluded). Kept draws are distributed by effective
// weight, and retries and warm-ups rarely pay more than a draw or two.
std::optional<size_t> Candidates::PickWeighted(FastRandom& random, size_t skip) const {
  for (int draw = 0; draw < kMaxDraws; ++draw) {
    const auto drawn = PickFromCumulative(random, skip);
    if (!drawn || unrestricted()) return drawn;
    const uint32_t configured = set_[*drawn].weight;
    const uint32_t effective = Weight(*drawn);
    if (effective == configured || random.Below(configured) < effective) return drawn;
  }
  return PickByScan(random, skip);
}

// One pass of weighted reservoir sampling: the i-th candidate replaces the pick with probability
// weight_i / running total.
std::optional<size_t> Candidates::PickByScan(FastRandom& random, size_t skip) const {
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
