#include "cluster/outlier_state.h"

#include <algorithm>

namespace ferry::cluster {
namespace {

// Shifting an int64_t further is undefined; the cap has long applied by then.
constexpr uint32_t kMaxShift = 62;

}  // namespace

bool OutlierState::RecordFailure(uint32_t threshold) {
  const uint32_t streak = consecutive_failures_.fetch_add(1, std::memory_order_relaxed) + 1;
  return threshold != 0 && streak >= threshold;
}

// Healthy calls only read the counter, so a busy healthy provider's line is not written.
void OutlierState::RecordSuccess() {
  if (consecutive_failures_.load(std::memory_order_relaxed) != 0) {
    consecutive_failures_.store(0, std::memory_order_relaxed);
  }
}

bool OutlierState::ClaimProbe() {
  bool expected = false;
  return !probe_claimed_.load(std::memory_order_relaxed) &&
         probe_claimed_.compare_exchange_strong(expected, true, std::memory_order_acq_rel);
}

std::chrono::milliseconds OutlierState::Eject(Clock::time_point now,
                                              const OutlierOptions& options) {
  if (level_ > 0 && phase() == Phase::kServing && now > serving_since_) {
    const auto served = now - serving_since_;
    const auto forgiven = static_cast<uint64_t>(served / options.max_ejection);
    level_ = forgiven >= level_ ? 0 : level_ - static_cast<uint32_t>(forgiven);
  }
  ++level_;
  const uint32_t shift = std::min(level_ - 1, kMaxShift);
  const int64_t base = options.base_ejection.count();
  const int64_t cap = options.max_ejection.count();
  // Compared before shifting, so that a large base cannot overflow.
  const std::chrono::milliseconds period(base > (cap >> shift) ? cap : base << shift);
  consecutive_failures_.store(0, std::memory_order_relaxed);
  phase_.store(Phase::kEjected, std::memory_order_release);
  return period;
}

void OutlierState::Readmit() {
  probe_claimed_.store(false, std::memory_order_relaxed);
  phase_.store(Phase::kProbing, std::memory_order_release);
}

void OutlierState::Restore(Clock::time_point now) {
  consecutive_failures_.store(0, std::memory_order_relaxed);
  serving_since_ = now;
  probe_claimed_.store(false, std::memory_order_relaxed);
  phase_.store(Phase::kServing, std::memory_order_release);
}

}  // namespace ferry::cluster
