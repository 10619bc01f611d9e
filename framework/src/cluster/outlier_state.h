#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

#include "ferry/framework/cluster_options.h"

namespace ferry::cluster {

// Outlier detection for one provider (docs/fault-tolerance.md): consecutive failures eject it for
// base * 2^(level-1), capped at max; when the period ends it is re-admitted as probing, and its
// next call is a probe: success puts it back in service, failure ejects it again one level
// higher. The level drops by one for every `max_ejection` the provider then serves without
// being ejected, so a provider that failed once long ago starts again from the base period.
//
// The Record*/probe methods run on the call path, lock-free. The phase transitions (Eject,
// Readmit, Restore) are made by the owner of the provider set under its lock, which also
// enforces the cap on how many providers may be ejected at once.
class OutlierState {
 public:
  using Clock = std::chrono::steady_clock;
  enum class Phase : uint8_t { kServing, kEjected, kProbing };

  Phase phase() const { return phase_.load(std::memory_order_acquire); }

  // A failed attempt; true when the streak has reached `threshold` (0: detection is off), and
  // the provider should be ejected.
  bool RecordFailure(uint32_t threshold);
  void RecordSuccess();

  // While probing, exactly one call at a time is the probe; the others look elsewhere.
  bool ClaimProbe();
  // The probe ended with no verdict (cancelled): the next call probes instead.
  void ReleaseProbe() { probe_claimed_.store(false, std::memory_order_release); }

  // To kEjected; returns for how long.
  std::chrono::milliseconds Eject(Clock::time_point now, const OutlierOptions& options);
  // kEjected -> kProbing.
  void Readmit();
  // kProbing -> kServing after a successful probe.
  void Restore(Clock::time_point now);

  uint32_t level() const { return level_; }

 private:
  std::atomic<Phase> phase_{Phase::kServing};
  std::atomic<uint32_t> consecutive_failures_{0};
  std::atomic<bool> probe_claimed_{false};
  // Owner's lock only.
  uint32_t level_ = 0;
  Clock::time_point serving_since_{};
};

}  // namespace ferry::cluster
