#pragma once

#include <cstdint>
#include <optional>

namespace ferry::metrics {

// What the process metrics read from /proc/self/stat, converted to base units.
struct ProcStat {
  double cpu_seconds = 0;  // user + system
  double resident_bytes = 0;
  double virtual_bytes = 0;
  double start_time_seconds = 0;  // since the Unix epoch
};

// nullopt when /proc cannot be read (not Linux, or no /proc mounted).
std::optional<ProcStat> ReadProcStat();
// Descriptors open in this process, not counting the one used to count them.
std::optional<int64_t> CountOpenFds();
// The soft limit on open descriptors; +Inf when unlimited.
std::optional<double> MaxFds();

}  // namespace ferry::metrics
