#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>

#include "token_bucket.h"

namespace ferry::plugins {

// The same limit as TokenBucket (created full, `burst` calls at once, `rate` per second after
// that), kept lock-free as the generic cell rate algorithm: one atomic "theoretical arrival
// time", the moment the bucket would be full again, advanced by one emission interval per call
// that fits. A call fits while that moment stays within burst × interval of now. Every server
// thread takes from a method's one bucket, so a compare-and-swap instead of a mutex matters.
//
// Times are counted in eighths of a nanosecond since the bucket was made, so that intervals of
// high rates stay exact enough (100M/s is 80 units); the interval and the tolerance are capped
// at 2^60 units (about 4.5 years), which keeps every sum inside int64 for 18 years.
class AtomicTokenBucket {
 public:
  AtomicTokenBucket(const RateLimit& limit, RateClock::time_point now)
      : epoch_(now),
        interval_(Units(1e9 * kUnitsPerNs / limit.rate)),
        tolerance_(Units(limit.burst * static_cast<double>(interval_))) {}

  bool TryTake(RateClock::time_point now) {
    const int64_t at = SinceEpoch(now);
    int64_t full_at = full_at_.load(std::memory_order_relaxed);
    for (;;) {
      const int64_t next = std::max(full_at, at) + interval_;
      if (next - at > tolerance_) return false;
      if (full_at_.compare_exchange_weak(full_at, next, std::memory_order_relaxed)) return true;
    }
  }

 private:
  static constexpr int64_t kUnitsPerNs = 8;
  static constexpr int64_t kMaxUnits = int64_t{1} << 60;

  static int64_t Units(double units) {
    return units >= static_cast<double>(kMaxUnits) ? kMaxUnits
                                                   : std::max<int64_t>(1, std::llround(units));
  }
  int64_t SinceEpoch(RateClock::time_point now) const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(now - epoch_).count() * kUnitsPerNs;
  }

  const RateClock::time_point epoch_;
  const int64_t interval_;   // units per call
  const int64_t tolerance_;  // burst × interval
  // Full since long before the epoch: the first calls may carry times slightly before it.
  std::atomic<int64_t> full_at_{-kMaxUnits};
};

}  // namespace ferry::plugins
