#include "ferry/framework/metrics/registry.h"

#include <utility>

#include "metrics/bucket_bounds.h"
#include "metrics/names.h"

namespace ferry::metrics {
namespace {

FamilySnapshot Info(std::string name, std::string help, MetricType type,
                    std::vector<std::string> label_names) {
  FamilySnapshot info;
  info.name = std::move(name);
  info.help = std::move(help);
  info.type = type;
  info.label_names = std::move(label_names);
  return info;
}

// The name of the family and every other name its sample lines carry.
std::vector<std::string> LineNames(const Family& family) {
  if (family.type() != MetricType::kHistogram) return {family.name()};
  return {family.name(), family.name() + "_bucket", family.name() + "_sum",
          family.name() + "_count"};
}

}  // namespace

MetricsRegistry::MetricsRegistry() = default;
MetricsRegistry::~MetricsRegistry() = default;

template <class F>
Result<F*> MetricsRegistry::Admit(std::unique_ptr<F> family) {
  const std::vector<std::string> lines = LineNames(*family);
  std::lock_guard lock(mu_);
  for (const std::string& line : lines) {
    if (line_names_.contains(line)) {
      return Status(StatusCode::ALREADY_EXISTS,
                    "metric \"" + family->name() + "\": \"" + line + "\" is registered already");
    }
  }
  line_names_.insert(lines.begin(), lines.end());
  F* admitted = family.get();
  families_.emplace(family->name(), std::move(family));
  return admitted;
}

template <class Cell>
Result<CellFamily<Cell>*> MetricsRegistry::AddCells(
    FamilySnapshot info, std::function<std::unique_ptr<Cell>()> new_cell) {
  if (Status status = CheckFamilyInfo(info); !status.ok()) return status;
  const bool labelled = !info.label_names.empty();
  Result<CellFamily<Cell>*> family =
      Admit(std::unique_ptr<CellFamily<Cell>>(new CellFamily<Cell>(std::move(info), new_cell)));
  // A family without labels has its one series from the start, so that it reads 0 rather than
  // missing until its first update.
  if (family.ok() && !labelled) (void)(*family)->WithLabels({});
  return family;
}

Result<CallbackFamily*> MetricsRegistry::AddCallbacks(FamilySnapshot info) {
  if (Status status = CheckFamilyInfo(info); !status.ok()) return status;
  return Admit(std::unique_ptr<CallbackFamily>(new CallbackFamily(std::move(info))));
}

Result<CounterFamily*> MetricsRegistry::AddCounter(std::string name, std::string help,
                                                   std::vector<std::string> label_names) {
  return AddCells<Counter>(
      Info(std::move(name), std::move(help), MetricType::kCounter, std::move(label_names)),
      [] { return std::make_unique<Counter>(); });
}

Result<GaugeFamily*> MetricsRegistry::AddGauge(std::string name, std::string help,
                                               std::vector<std::string> label_names) {
  return AddCells<Gauge>(
      Info(std::move(name), std::move(help), MetricType::kGauge, std::move(label_names)),
      [] { return std::make_unique<Gauge>(); });
}

Result<UpDownCounterFamily*> MetricsRegistry::AddUpDownCounter(
    std::string name, std::string help, std::vector<std::string> label_names) {
  return AddCells<UpDownCounter>(
      Info(std::move(name), std::move(help), MetricType::kGauge, std::move(label_names)),
      [] { return std::make_unique<UpDownCounter>(); });
}

Result<HistogramFamily*> MetricsRegistry::AddHistogram(std::string name, std::string help,
                                                       std::vector<std::string> label_names,
                                                       std::vector<double> bucket_bounds) {
  auto nanos = std::make_shared<std::vector<int64_t>>();
  if (Status status = BucketBoundsToNanos(name, bucket_bounds, nanos.get()); !status.ok()) {
    return status;
  }
  FamilySnapshot info =
      Info(std::move(name), std::move(help), MetricType::kHistogram, std::move(label_names));
  info.bucket_bounds = std::move(bucket_bounds);
  // The cells compare with the bounds that the family's cell maker keeps alive.
  std::shared_ptr<const std::vector<int64_t>> bounds = std::move(nanos);
  return AddCells<Histogram>(std::move(info),
                             [bounds] { return std::make_unique<Histogram>(*bounds); });
}

Result<CallbackFamily*> MetricsRegistry::AddCounterCallback(std::string name, std::string help,
                                                            std::vector<std::string> label_names) {
  return AddCallbacks(
      Info(std::move(name), std::move(help), MetricType::kCounter, std::move(label_names)));
}

Result<CallbackFamily*> MetricsRegistry::AddGaugeCallback(std::string name, std::string help,
                                                          std::vector<std::string> label_names) {
  return AddCallbacks(
      Info(std::move(name), std::move(help), MetricType::kGauge, std::move(label_names)));
}

std::vector<FamilySnapshot> MetricsRegistry::Collect() const {
  std::vector<const Family*> families;
  {
    std::lock_guard lock(mu_);
    families.reserve(families_.size());
    for (const auto& [name, family] : families_) families.push_back(family.get());
  }
  // Families are never removed, so they can be read without the registry's lock, which keeps a
  // slow callback from holding up registrations.
  std::vector<FamilySnapshot> snapshots;
  snapshots.reserve(families.size());
  for (const Family* family : families) {
    FamilySnapshot snapshot = family->Collect();
    if (!snapshot.series.empty()) snapshots.push_back(std::move(snapshot));
  }
  return snapshots;
}

}  // namespace ferry::metrics
