#include "ferry/framework/metrics/histogram.h"

#include <cmath>
#include <limits>

namespace ferry::metrics {

std::vector<double> DefaultLatencyBuckets() {
  return {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
          0.05,   0.1,     0.25,   0.5,   1,      2.5,   5,    10};
}

void Histogram::ObserveSeconds(double seconds) {
  constexpr double kMaxNanos = static_cast<double>(std::numeric_limits<int64_t>::max());
  const double ns = seconds * 1e9;
  if (!(ns > 0)) return Observe(std::chrono::nanoseconds(0));
  Observe(std::chrono::nanoseconds(ns < kMaxNanos ? std::llround(ns)
                                                  : std::numeric_limits<int64_t>::max()));
}

HistogramCounts Histogram::Read() const {
  HistogramCounts counts;
  counts.cumulative.resize(bounds_.size() + 1);
  uint64_t running = 0;
  for (size_t i = 0; i < counts.cumulative.size(); ++i) {
    running += counts_.Sum(i);
    counts.cumulative[i] = running;
  }
  counts.sum_seconds = static_cast<double>(counts_.Sum(sum_index())) / 1e9;
  return counts;
}

}  // namespace ferry::metrics
