#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "ferry/framework/metrics/callback_family.h"
#include "ferry/framework/metrics/family.h"
#include "ferry/framework/metrics/snapshot.h"
#include "ferry/framework/result.h"

namespace ferry::metrics {

// The families one exposition shows. Registering takes a lock and is meant for start-up (or the
// first use of a method); what is registered stays until the registry goes, so the families and
// cells it hands out may be kept as plain pointers. Thread-safe.
//
// Every Add* refuses, with INVALID_ARGUMENT naming the problem: a name outside
// [a-zA-Z_:][a-zA-Z0-9_:]*; a counter name without the `_total` suffix, or another kind's with
// it; empty help or help that is not UTF-8; a label name outside [a-zA-Z_][a-zA-Z0-9_]*, starting
// with `__`, repeated, or `le` on a histogram. It refuses with ALREADY_EXISTS a name that is
// taken, or whose lines would clash with another family's (a histogram `x` owns `x_bucket`,
// `x_sum` and `x_count`). A family with no label names starts with its one series at zero.
class MetricsRegistry {
 public:
  MetricsRegistry();
  ~MetricsRegistry();
  MetricsRegistry(const MetricsRegistry&) = delete;
  MetricsRegistry& operator=(const MetricsRegistry&) = delete;

  Result<CounterFamily*> AddCounter(std::string name, std::string help,
                                    std::vector<std::string> label_names = {});
  Result<GaugeFamily*> AddGauge(std::string name, std::string help,
                                std::vector<std::string> label_names = {});
  // Exported as a gauge.
  Result<UpDownCounterFamily*> AddUpDownCounter(std::string name, std::string help,
                                                std::vector<std::string> label_names = {});
  // `bucket_bounds` in seconds, strictly increasing, finite, at least one, none negative and
  // none closer than 1 ns to the next (observations are counted in whole nanoseconds); +Inf is
  // implied.
  Result<HistogramFamily*> AddHistogram(
      std::string name, std::string help, std::vector<std::string> label_names = {},
      std::vector<double> bucket_bounds = DefaultLatencyBuckets());
  // Families read at scrape time (CallbackFamily::Bind), exported as a counter or a gauge.
  Result<CallbackFamily*> AddCounterCallback(std::string name, std::string help,
                                             std::vector<std::string> label_names = {});
  Result<CallbackFamily*> AddGaugeCallback(std::string name, std::string help,
                                           std::vector<std::string> label_names = {});

  // Every family that has a series, ordered by name.
  std::vector<FamilySnapshot> Collect() const;

 private:
  template <class Cell>
  Result<CellFamily<Cell>*> AddCells(FamilySnapshot info,
                                     std::function<std::unique_ptr<Cell>()> new_cell);
  Result<CallbackFamily*> AddCallbacks(FamilySnapshot info);
  template <class F>
  Result<F*> Admit(std::unique_ptr<F> family);

  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<Family>> families_;
  std::set<std::string> line_names_;  // every name a sample line of a family may carry
};

// The process-wide registry that /metrics serves, with the process_* families (process_metrics.h)
// registered in it. Made at first call; lives until the process exits.
MetricsRegistry& Metrics();

}  // namespace ferry::metrics
