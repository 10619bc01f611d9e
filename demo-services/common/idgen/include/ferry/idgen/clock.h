#pragma once

#include <cstdint>
#include <memory>

namespace ferry::idgen {

// Where a generator reads the time. An interface rather than a direct system_clock call so
// that tests can step the clock back and exhaust a millisecond's sequence deterministically,
// without sleeping for real.
//
// Implementations must be safe to call from several threads: generators call it under their
// own lock, but several generators may share one clock.
class Clock {
 public:
  virtual ~Clock() = default;

  // Unix time in ms. Wall time on purpose, not a monotonic clock: ids carry the time of issue
  // and must not repeat across restarts, so they have to follow the one clock that survives a
  // restart. The price is that it may step back (NTP, an operator), which the generator
  // handles.
  virtual int64_t NowMs() = 0;

  // Blocks until NowMs() reaches `target_ms`, but for no longer than `target_ms` minus NowMs()
  // at the call, measured on a monotonic clock: should the wall clock step back meanwhile, the
  // caller gets control back to decide again. Returns at once when the target has passed. A
  // fake clock simply moves itself forward to `target_ms`.
  virtual void SleepUntil(int64_t target_ms) = 0;
};

// std::chrono::system_clock; one shared instance.
std::shared_ptr<Clock> SystemClock();

}  // namespace ferry::idgen
