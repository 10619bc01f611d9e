#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "ferry/bench/latency_histogram.h"

namespace ferry::bench {

// What one measured run produced. Latencies cover successful calls only: an error that fails
// fast would otherwise flatter the percentiles.
struct LoadSummary {
  double measured_seconds = 0;
  uint64_t ok_calls = 0;
  uint64_t errors = 0;
  std::vector<std::pair<std::string_view, uint64_t>> errors_by_status;  // most frequent first
  LatencyHistogram latency;                                             // every successful call
  LatencyHistogram fast_latency;  // successful calls that were not asked to be slow
  // Calls still outstanding when the run gave up waiting for them after the deadline.
  uint64_t unfinished_calls = 0;

  double qps() const { return measured_seconds > 0 ? ok_calls / measured_seconds : 0; }
};

}  // namespace ferry::bench
