#include "ferry/framework/metrics/process_metrics.h"

#include <cmath>
#include <functional>
#include <string>

#include "metrics/proc_stat.h"

namespace ferry::metrics {
namespace {

struct ProcessFamily {
  const char* name;
  const char* help;
  MetricType type;
  std::function<double()> read;
};

double StatField(double ProcStat::*field) {
  const std::optional<ProcStat> stat = ReadProcStat();
  return stat ? (*stat).*field : NAN;
}

}  // namespace

Result<std::unique_ptr<ProcessMetrics>> ProcessMetrics::Register(MetricsRegistry& registry) {
  // The start time does not change: read once, not at every scrape.
  const double start_time = StatField(&ProcStat::start_time_seconds);
  const ProcessFamily families[] = {
      {"process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
       MetricType::kCounter, [] { return StatField(&ProcStat::cpu_seconds); }},
      {"process_resident_memory_bytes", "Resident memory size in bytes.", MetricType::kGauge,
       [] { return StatField(&ProcStat::resident_bytes); }},
      {"process_virtual_memory_bytes", "Virtual memory size in bytes.", MetricType::kGauge,
       [] { return StatField(&ProcStat::virtual_bytes); }},
      {"process_open_fds", "Number of open file descriptors.", MetricType::kGauge,
       [] {
         const std::optional<int64_t> fds = CountOpenFds();
         return fds ? static_cast<double>(*fds) : NAN;
       }},
      {"process_max_fds", "Maximum number of open file descriptors.", MetricType::kGauge,
       [] { return MaxFds().value_or(NAN); }},
      {"process_start_time_seconds", "Start time of the process since unix epoch in seconds.",
       MetricType::kGauge, [start_time] { return start_time; }},
  };
  std::unique_ptr<ProcessMetrics> metrics(new ProcessMetrics());
  for (const ProcessFamily& process_family : families) {
    Result<CallbackFamily*> family =
        process_family.type == MetricType::kCounter
            ? registry.AddCounterCallback(process_family.name, process_family.help)
            : registry.AddGaugeCallback(process_family.name, process_family.help);
    if (!family.ok()) return family.status();
    Result<CallbackHandle> handle = (*family)->Bind({}, process_family.read);
    if (!handle.ok()) return handle.status();
    metrics->handles_.push_back(std::move(*handle));
  }
  return metrics;
}

}  // namespace ferry::metrics
