#pragma once

#include <atomic>
#include <cstdint>

#include "ferry/idgen/clock.h"

namespace ferry::idgen::testutil {

// A clock that moves only when told to, or when the generator sleeps on it: SleepUntil jumps
// straight to the target. Tests step it back and exhaust sequences without real waiting.
class FakeClock final : public Clock {
 public:
  explicit FakeClock(int64_t now_ms) : now_(now_ms) {}

  int64_t NowMs() override { return now_.load(); }
  void SleepUntil(int64_t target_ms) override;

  void Set(int64_t now_ms) { now_.store(now_ms); }
  void Advance(int64_t ms) { now_.fetch_add(ms); }
  int sleeps() const { return sleeps_.load(); }

 private:
  std::atomic<int64_t> now_;
  std::atomic<int> sleeps_{0};
};

}  // namespace ferry::idgen::testutil
