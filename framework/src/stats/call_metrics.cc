#include "stats/call_metrics.h"

#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "method/per_method_cache.h"

namespace ferry::stats {
namespace {

struct SideFamilies {
  metrics::CounterFamily* calls;
  metrics::HistogramFamily* duration;
  metrics::UpDownCounterFamily* in_flight;
};

SideFamilies MakeFamilies(const std::string& side, const std::string& calls_help,
                          const std::string& duration_help) {
  metrics::MetricsRegistry& registry = metrics::Metrics();
  const std::string prefix = "ferry_" + side;
  return SideFamilies{
      .calls =
          registry.AddCounter(prefix + "_calls_total", calls_help, {"service", "method", "code"})
              .value(),
      .duration =
          registry
              .AddHistogram(prefix + "_call_duration_seconds", duration_help, {"service", "method"})
              .value(),
      .in_flight =
          registry
              .AddUpDownCounter(prefix + "_calls_in_flight", "Calls started and not yet answered.",
                                {"service", "method"})
              .value()};
}

// Registered once per process in the process-wide registry.
const SideFamilies& FamiliesOf(MethodMetrics::Side side) {
  static const SideFamilies server = MakeFamilies("server", "Calls served, by status code.",
                                                  "Time from reading a request to answering it.");
  static const SideFamilies client =
      MakeFamilies("client", "Calls made, by status code (one per call, whatever its retries).",
                   "Time from starting a call to its completion, retries included.");
  return side == MethodMetrics::Side::kServer ? server : client;
}

}  // namespace

MethodMetrics::MethodMetrics(Side side, std::string service, std::string method)
    : side_(side), service_(std::move(service)), method_(std::move(method)) {
  const SideFamilies& families = FamiliesOf(side);
  duration_ = families.duration->WithLabels({service_, method_}).value();
  in_flight_ = families.in_flight->WithLabels({service_, method_}).value();
}

metrics::Counter* MethodMetrics::CounterFor(size_t code) {
  metrics::Counter* counter =
      FamiliesOf(side_)
          .calls
          ->WithLabels(
              {service_, method_, std::string(StatusCodeName(static_cast<StatusCode>(code)))})
          .value();
  by_code_[code].store(counter, std::memory_order_release);
  return counter;
}

uint64_t MethodMetrics::Calls() const {
  uint64_t calls = 0;
  for (const auto& counter : by_code_) {
    if (const metrics::Counter* c = counter.load(std::memory_order_acquire)) calls += c->Value();
  }
  return calls;
}

uint64_t MethodMetrics::Errors() const {
  const metrics::Counter* ok = by_code_[0].load(std::memory_order_acquire);
  return Calls() - (ok != nullptr ? ok->Value() : 0);
}

MethodMetrics& MethodMetricsFor(MethodMetrics::Side side, std::string_view service,
                                std::string_view method) {
  static std::mutex mu;
  static auto* all =
      new std::map<std::tuple<int, std::string, std::string>, std::unique_ptr<MethodMetrics>>();
  std::lock_guard lock(mu);
  auto key = std::make_tuple(static_cast<int>(side), std::string(service), std::string(method));
  auto it = all->find(key);
  if (it == all->end()) {
    it = all->emplace(key, std::make_unique<MethodMetrics>(side, std::string(service),
                                                           std::string(method)))
             .first;
  }
  return *it->second;
}

MethodMetrics& ClientMetricsFor(const MethodSpec& method) {
  static auto* cache = new method::PerMethodCache<MethodMetrics*>([](const MethodSpec& spec) {
    return &MethodMetricsFor(MethodMetrics::Side::kClient, spec.service, spec.method);
  });
  return *cache->For(method);
}

}  // namespace ferry::stats
