#include "fake_clock.h"

namespace ferry::idgen::testutil {

void FakeClock::SleepUntil(int64_t target_ms) {
  ++sleeps_;
  int64_t now = now_.load();
  while (now < target_ms && !now_.compare_exchange_weak(now, target_ms)) {
  }
}

}  // namespace ferry::idgen::testutil
