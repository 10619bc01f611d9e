#include <memory>

#include "ferry/framework/metrics/process_metrics.h"
#include "ferry/framework/metrics/registry.h"

namespace ferry::metrics {
namespace {

struct GlobalMetrics {
  MetricsRegistry registry;
  std::unique_ptr<ProcessMetrics> process;
};

}  // namespace

MetricsRegistry& Metrics() {
  // Never destroyed: cells are updated, and callback handles reset, by objects that may outlive
  // any static, up to the last exit handler.
  static GlobalMetrics* const global = [] {
    auto* created = new GlobalMetrics();
    // Cannot fail on a fresh registry.
    Result<std::unique_ptr<ProcessMetrics>> process = ProcessMetrics::Register(created->registry);
    if (process.ok()) created->process = std::move(*process);
    return created;
  }();
  return global->registry;
}

}  // namespace ferry::metrics
