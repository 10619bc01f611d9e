#include "ferry/idgen/clock.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace ferry::idgen {
namespace {

using namespace std::chrono_literals;

class SystemClockImpl final : public Clock {
 public:
  int64_t NowMs() override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }

  void SleepUntil(int64_t target_ms) override {
    int64_t now = NowMs();
    if (now >= target_ms) return;
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(target_ms - now);
    for (;;) {
      const auto left = deadline - std::chrono::steady_clock::now();
      if (left <= std::chrono::steady_clock::duration::zero()) return;
      // Whole milliseconds while far away, then short naps: the target is usually the next
      // millisecond, whose start is somewhere within the coming one.
      const std::chrono::steady_clock::duration nap =
          target_ms - now > 1 ? std::chrono::milliseconds(target_ms - now - 1)
                              : std::chrono::steady_clock::duration(100us);
      std::this_thread::sleep_for(std::min(nap, left));
      now = NowMs();
      if (now >= target_ms) return;
    }
  }
};

}  // namespace

std::shared_ptr<Clock> SystemClock() {
  static const std::shared_ptr<Clock> clock = std::make_shared<SystemClockImpl>();
  return clock;
}

}  // namespace ferry::idgen
