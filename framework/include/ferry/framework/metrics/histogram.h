#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "ferry/framework/metrics/sharded_counts.h"

namespace ferry::metrics {

// Bucket upper bounds in seconds for call latencies: 100 us to 10 s in 1-2.5-5 steps (16
// buckets and +Inf), fine enough where RPCs usually land and still bounded for timeouts.
std::vector<double> DefaultLatencyBuckets();

// What a histogram has counted: per bucket, the observations at or below its bound (cumulative,
// as Prometheus exports them), the last entry (+Inf) being all of them; and their sum.
struct HistogramCounts {
  std::vector<uint64_t> cumulative;
  double sum_seconds = 0;
  uint64_t count() const { return cumulative.empty() ? 0 : cumulative.back(); }
};

// A distribution of durations over fixed buckets. Observe takes integer nanoseconds so that the
// hot path does no floating point: a binary search over the bounds and two relaxed fetch_adds
// on the thread's shard (its bucket and the sum, kept in nanoseconds: an atomic double sum would
// need a compare-and-swap loop). The count is not stored: it is the buckets' total.
// Obtained from a HistogramFamily, which owns `bounds_ns` and outlives the cell.
class Histogram {
 public:
  // `bounds_ns` strictly increasing (HistogramFamily checks).
  explicit Histogram(std::span<const int64_t> bounds_ns)
      : bounds_(bounds_ns), counts_(bounds_ns.size() + 2) {}

  // Negative durations count as zero.
  void Observe(std::chrono::nanoseconds duration) {
    const int64_t ns = duration.count() > 0 ? duration.count() : 0;
    const size_t bucket =
        static_cast<size_t>(std::lower_bound(bounds_.begin(), bounds_.end(), ns) - bounds_.begin());
    counts_.Add(bucket, 1);
    counts_.Add(sum_index(), static_cast<uint64_t>(ns));
  }
  // For a duration that is already in seconds; NaN and negative values count as zero.
  void ObserveSeconds(double seconds);

  HistogramCounts Read() const;

 private:
  size_t sum_index() const { return bounds_.size() + 1; }

  const std::span<const int64_t> bounds_;
  detail::ShardedCounts counts_;  // one per bucket (+Inf last), then the sum in nanoseconds
};

}  // namespace ferry::metrics
