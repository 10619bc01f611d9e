#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>

namespace ferry::bench {

using Clock = std::chrono::steady_clock;

// Milliseconds since the epoch, for ids and windows a provider compares with its own clock.
inline int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

inline double SecondsBetween(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

// A flag's seconds as a clock duration.
inline Clock::duration Seconds(double seconds) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

inline int64_t MillisBetween(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(to - from).count();
}

// `n` over `seconds`, rounded; 0 when no time passed.
inline uint64_t PerSecond(uint64_t n, double seconds) {
  return seconds > 0 ? static_cast<uint64_t>(std::llround(static_cast<double>(n) / seconds)) : 0;
}

}  // namespace ferry::bench
