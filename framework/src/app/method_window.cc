#include "app/method_window.h"

#include <algorithm>

namespace ferry::app {

MethodWindow::MethodWindow(std::vector<stats::MethodMetrics*> methods, std::chrono::seconds window)
    : methods_(std::move(methods)), window_(window) {}

MethodWindow::Snapshot MethodWindow::Take(Clock::time_point now) const {
  Snapshot snapshot{.at = now, .readings = {}};
  snapshot.readings.reserve(methods_.size());
  for (const stats::MethodMetrics* method : methods_) {
    snapshot.readings.push_back(Reading{.calls = method->Calls(),
                                        .errors = method->Errors(),
                                        .durations = method->ReadDurations()});
  }
  return snapshot;
}

void MethodWindow::Sample(Clock::time_point now) {
  Snapshot snapshot = Take(now);
  MutexLock lock(mu_);
  snapshots_.push_back(std::move(snapshot));
  // The newest sample that is a whole window old is where the window starts: older ones go.
  while (snapshots_.size() > 1 && now - snapshots_[1].at >= window_) snapshots_.pop_front();
}

std::vector<MethodStatus> MethodWindow::Read(Clock::time_point now) const {
  static const std::vector<double> bounds = metrics::DefaultLatencyBuckets();
  const Snapshot last = Take(now);
  std::vector<MethodStatus> out;
  out.reserve(methods_.size());
  MutexLock lock(mu_);
  for (size_t i = 0; i < methods_.size(); ++i) {
    MethodStatus status{.service = methods_[i]->service(), .method = methods_[i]->method()};
    if (!snapshots_.empty()) {
      const Snapshot& first = snapshots_.front();
      const Reading& from = first.readings[i];
      const Reading& to = last.readings[i];
      status.calls = to.calls - from.calls;
      status.errors = to.errors - from.errors;
      const double seconds = std::chrono::duration<double>(last.at - first.at).count();
      status.qps = seconds > 0 ? static_cast<double>(status.calls) / seconds : 0;
      std::vector<uint64_t> cumulative = to.durations.cumulative;
      for (size_t b = 0; b < cumulative.size() && b < from.durations.cumulative.size(); ++b) {
        cumulative[b] -= from.durations.cumulative[b];
      }
      status.p50_ms = BucketQuantile(0.5, cumulative, bounds) * 1000;
      status.p99_ms = BucketQuantile(0.99, cumulative, bounds) * 1000;
    }
    out.push_back(std::move(status));
  }
  return out;
}

double BucketQuantile(double quantile, const std::vector<uint64_t>& cumulative,
                      const std::vector<double>& bounds) {
  if (cumulative.empty() || cumulative.back() == 0 || bounds.empty()) return 0;
  const double rank = quantile * static_cast<double>(cumulative.back());
  size_t bucket = 0;
  while (bucket + 1 < cumulative.size() && static_cast<double>(cumulative[bucket]) < rank) {
    ++bucket;
  }
  if (bucket >= bounds.size()) return bounds.back();  // in +Inf
  const double lower = bucket == 0 ? 0 : bounds[bucket - 1];
  const uint64_t below = bucket == 0 ? 0 : cumulative[bucket - 1];
  const uint64_t in_bucket = cumulative[bucket] - below;
  if (in_bucket == 0) return lower;
  return lower + (bounds[bucket] - lower) * (rank - static_cast<double>(below)) /
                     static_cast<double>(in_bucket);
}

}  // namespace ferry::app
