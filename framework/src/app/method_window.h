#pragma once

#include <chrono>
#include <deque>
#include <mutex>
#include <vector>

#include "app/admin_pages.h"
#include "stats/call_metrics.h"
#include "thread_annotations.h"

namespace ferry::app {

// The status page's last minute of each served method, from its cumulative metrics: samples
// taken every few seconds, and a method's figures are the difference between a reading taken
// when they are asked for and the newest sample at least a window old (or the oldest, while
// there is none). Percentiles are interpolated within the latency histogram's buckets, as
// Prometheus' histogram_quantile() does. Thread-safe.
class MethodWindow {
 public:
  using Clock = std::chrono::steady_clock;

  MethodWindow(std::vector<stats::MethodMetrics*> methods, std::chrono::seconds window);

  void Sample(Clock::time_point now);
  // Per method, from the window's start to `now`; zeros before the first sample.
  std::vector<MethodStatus> Read(Clock::time_point now) const;

 private:
  struct Reading {
    uint64_t calls = 0;
    uint64_t errors = 0;
    metrics::HistogramCounts durations;
  };
  struct Snapshot {
    Clock::time_point at;
    std::vector<Reading> readings;  // by method, in methods_' order
  };
  Snapshot Take(Clock::time_point now) const;

  const std::vector<stats::MethodMetrics*> methods_;
  const std::chrono::seconds window_;
  mutable Mutex mu_;
  std::deque<Snapshot> snapshots_ FERRY_GUARDED_BY(mu_);  // oldest first
};

// The value below which `quantile` (0..1) of the observations counted in `cumulative` lie, by
// linear interpolation within the bucket holding it; bounds in seconds, the last bucket being
// +Inf (whose observations are reported at the last finite bound). 0 without observations.
double BucketQuantile(double quantile, const std::vector<uint64_t>& cumulative,
                      const std::vector<double>& bounds);

}  // namespace ferry::app
