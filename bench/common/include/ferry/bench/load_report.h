#pragma once

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>

#include "ferry/bench/load_options.h"
#include "ferry/bench/load_summary.h"

namespace ferry::bench {

// One line of progress, printed every second while the load runs.
struct ProgressSample {
  double elapsed_seconds = 0;
  bool warmup = false;
  double interval_qps = 0;          // calls completed in the last interval, any status
  uint64_t errors = 0;              // since measuring began
  std::chrono::nanoseconds p99{0};  // of successful calls since measuring began
};

// Everything a bench client prints on stdout. Scripts parse only the last line of a run,
// which is always exactly
//   RESULT qps=<n> p50_us=<n> p90_us=<n> p99_us=<n> p999_us=<n> errors=<n>
class LoadReport {
 public:
  LoadReport(std::string program, const LoadOptions& options, std::ostream& out);

  void PrintStart() const;
  void PrintProgress(const ProgressSample& sample) const;
  void PrintSummary(const LoadSummary& summary) const;

 private:
  std::string program_;
  LoadOptions options_;
  std::ostream& out_;
};

// Whole microseconds, rounded to nearest.
uint64_t ToMicros(std::chrono::nanoseconds latency);

}  // namespace ferry::bench
