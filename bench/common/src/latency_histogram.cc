#include "ferry/bench/latency_histogram.h"

#include <algorithm>
#include <cmath>

namespace ferry::bench {

LatencyHistogram::LatencyHistogram() : counts_(std::make_unique<Counts>()) { Reset(); }

void LatencyHistogram::Reset() {
  Counts& c = *counts_;
  for (auto& bucket : c.buckets) bucket.Set(0);
  c.count.Set(0);
  c.sum.Set(0);
  c.min.Set(std::numeric_limits<uint64_t>::max());
  c.max.Set(0);
}

void LatencyHistogram::Merge(const LatencyHistogram& other) {
  Counts& c = *counts_;
  const Counts& o = *other.counts_;
  for (size_t i = 0; i < kBucketCount; ++i) {
    if (const uint64_t n = o.buckets[i].Load(); n != 0) c.buckets[i].Add(n);
  }
  c.count.Add(o.count.Load());
  c.sum.Add(o.sum.Load());
  c.min.Set(std::min(c.min.Load(), o.min.Load()));
  c.max.Set(std::max(c.max.Load(), o.max.Load()));
}

uint64_t LatencyHistogram::BucketMidpoint(size_t index) {
  if (index < kSubBuckets) return index;
  const uint64_t shift = index / kSubBuckets - 1;
  const uint64_t lowest = (kSubBuckets + index % kSubBuckets) << shift;
  return lowest + ((uint64_t{1} << shift) >> 1);
}

std::chrono::nanoseconds LatencyHistogram::ValueAtPercentile(double percentile) const {
  const Counts& c = *counts_;
  // Bucket counts are summed rather than trusting `count`: a concurrent writer may have bumped
  // one before the other.
  uint64_t total = 0;
  for (const auto& bucket : c.buckets) total += bucket.Load();
  if (total == 0) return std::chrono::nanoseconds(0);
  const double clamped = std::clamp(percentile, 0.0, 100.0);
  // The small bias keeps float noise (99.9% of 1000 = 999.0000000000001) from skipping a rank.
  const double exact_rank = clamped * static_cast<double>(total) / 100.0;
  const auto rank = std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(exact_rank - 1e-9)));
  // The highest value is known exactly; no bucket estimate needed.
  if (rank >= total) return max();
  uint64_t seen = 0;
  size_t index = 0;
  for (; index < kBucketCount; ++index) {
    seen += c.buckets[index].Load();
    if (seen >= rank) break;
  }
  uint64_t value = BucketMidpoint(std::min(index, kBucketCount - 1));
  const uint64_t lowest = c.min.Load();
  const uint64_t highest = c.max.Load();
  // The extremes are exact, so a bucket midpoint beyond them is pulled back in.
  if (lowest <= highest) value = std::clamp(value, lowest, highest);
  return std::chrono::nanoseconds(value);
}

std::chrono::nanoseconds LatencyHistogram::min() const {
  return std::chrono::nanoseconds(count() == 0 ? 0 : counts_->min.Load());
}

std::chrono::nanoseconds LatencyHistogram::max() const {
  return std::chrono::nanoseconds(counts_->max.Load());
}

std::chrono::nanoseconds LatencyHistogram::mean() const {
  const uint64_t n = count();
  return std::chrono::nanoseconds(n == 0 ? 0 : counts_->sum.Load() / n);
}

}  // namespace ferry::bench
