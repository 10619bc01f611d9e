#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "ferry/codec/status.h"
#include "ferry/framework/metrics/counter.h"
#include "ferry/framework/metrics/gauge.h"
#include "ferry/framework/metrics/histogram.h"
#include "ferry/framework/metrics/snapshot.h"
#include "ferry/framework/metrics/up_down_counter.h"
#include "ferry/framework/result.h"

namespace ferry::metrics {

class MetricsRegistry;

// A named metric with a fixed set of label names, one series per combination of label values.
// Families are made by a MetricsRegistry and live as long as it does.
class Family {
 public:
  virtual ~Family() = default;
  Family(const Family&) = delete;
  Family& operator=(const Family&) = delete;

  const std::string& name() const { return info_.name; }
  const std::string& help() const { return info_.help; }
  MetricType type() const { return info_.type; }
  const std::vector<std::string>& label_names() const { return info_.label_names; }

  // Every series as it is now, ordered by label values; none when the family has none yet (a
  // scrape then leaves the family out).
  virtual FamilySnapshot Collect() const = 0;

 protected:
  // `info` without series: what every snapshot of the family starts from.
  explicit Family(FamilySnapshot info) : info_(std::move(info)) {}

  // INVALID_ARGUMENT unless there is one value per label name, each valid UTF-8.
  Status CheckLabelValues(const std::vector<std::string>& label_values) const;
  const FamilySnapshot& info() const { return info_; }

 private:
  const FamilySnapshot info_;
};

// A family of cells updated in place: the caller looks its cell up once, keeps the pointer (in
// its per-method state, say) and from then on updates it with no lookup and no lock.
template <class Cell>
class CellFamily final : public Family {
 public:
  // The cell of `label_values` (one per label name, in order), made at first use and kept as
  // long as the registry: the same pointer for the same values. Takes a lock; not for the hot
  // path. INVALID_ARGUMENT for a wrong number of values or one that is not UTF-8.
  Result<Cell*> WithLabels(const std::vector<std::string>& label_values);

  FamilySnapshot Collect() const override;

 private:
  friend class MetricsRegistry;
  CellFamily(FamilySnapshot info, std::function<std::unique_ptr<Cell>()> new_cell)
      : Family(std::move(info)), new_cell_(std::move(new_cell)) {}

  const std::function<std::unique_ptr<Cell>()> new_cell_;
  mutable std::mutex mu_;
  std::map<std::vector<std::string>, std::unique_ptr<Cell>> cells_;
};

using CounterFamily = CellFamily<Counter>;
using GaugeFamily = CellFamily<Gauge>;
using UpDownCounterFamily = CellFamily<UpDownCounter>;
using HistogramFamily = CellFamily<Histogram>;

extern template class CellFamily<Counter>;
extern template class CellFamily<Gauge>;
extern template class CellFamily<UpDownCounter>;
extern template class CellFamily<Histogram>;

}  // namespace ferry::metrics
