#pragma once

#include <memory>
#include <vector>

#include "ferry/framework/metrics/callback_family.h"
#include "ferry/framework/metrics/registry.h"
#include "ferry/framework/result.h"

namespace ferry::metrics {

// The process families every Prometheus client library exports under the same names, read from
// /proc at scrape time: process_cpu_seconds_total, process_resident_memory_bytes,
// process_virtual_memory_bytes, process_open_fds, process_max_fds, process_start_time_seconds.
// Metrics() has them already; a registry made for a test registers them itself.
class ProcessMetrics {
 public:
  // Registers the families in `registry`, which must outlive the returned object; they report
  // until it is destroyed. ALREADY_EXISTS when the registry has them.
  static Result<std::unique_ptr<ProcessMetrics>> Register(MetricsRegistry& registry);

 private:
  ProcessMetrics() = default;
  std::vector<CallbackHandle> handles_;
};

}  // namespace ferry::metrics
