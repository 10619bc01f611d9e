#include "ferry/framework/metrics/family.h"

#include "metrics/names.h"

namespace ferry::metrics {
namespace {

void ReadCell(const Counter& cell, Series* series) {
  series->value = static_cast<double>(cell.Value());
}
void ReadCell(const Gauge& cell, Series* series) { series->value = cell.Value(); }
void ReadCell(const UpDownCounter& cell, Series* series) {
  series->value = static_cast<double>(cell.Value());
}
void ReadCell(const Histogram& cell, Series* series) { series->histogram = cell.Read(); }

}  // namespace

Status Family::CheckLabelValues(const std::vector<std::string>& label_values) const {
  if (label_values.size() != info_.label_names.size()) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "metric \"" + info_.name + "\" has " + std::to_string(info_.label_names.size()) +
                      " labels, given " + std::to_string(label_values.size()) + " values");
  }
  for (size_t i = 0; i < label_values.size(); ++i) {
    if (!IsValidUtf8(label_values[i])) {
      return Status(StatusCode::INVALID_ARGUMENT, "metric \"" + info_.name + "\": the value of " +
                                                      info_.label_names[i] + " is not valid UTF-8");
    }
  }
  return Status::Ok();
}

template <class Cell>
Result<Cell*> CellFamily<Cell>::WithLabels(const std::vector<std::string>& label_values) {
  if (Status status = CheckLabelValues(label_values); !status.ok()) return status;
  std::lock_guard lock(mu_);
  std::unique_ptr<Cell>& cell = cells_[label_values];
  if (!cell) cell = new_cell_();
  return cell.get();
}

template <class Cell>
FamilySnapshot CellFamily<Cell>::Collect() const {
  FamilySnapshot snapshot = info();
  std::lock_guard lock(mu_);
  snapshot.series.reserve(cells_.size());
  for (const auto& [label_values, cell] : cells_) {
    Series& series = snapshot.series.emplace_back();
    series.label_values = label_values;
    ReadCell(*cell, &series);
  }
  return snapshot;
}

template class CellFamily<Counter>;
template class CellFamily<Gauge>;
template class CellFamily<UpDownCounter>;
template class CellFamily<Histogram>;

}  // namespace ferry::metrics
