#pragma once

#include <algorithm>
#include <chrono>
#include <mutex>

namespace ferry::shortlink {

// One token bucket: up to `per_second` takes a second, a second's worth held at most.
class RateLimiter {
 public:
  using Clock = std::chrono::steady_clock;
  explicit RateLimiter(double per_second) : per_second_(per_second), tokens_(per_second) {}

  bool Take(Clock::time_point now = Clock::now()) {
    std::lock_guard lock(mu_);
    const double elapsed = std::chrono::duration<double>(now - at_).count();
    tokens_ = std::min(per_second_, tokens_ + std::max(0.0, elapsed) * per_second_);
    at_ = now;
    if (tokens_ < 1) return false;
    tokens_ -= 1;
    return true;
  }

 private:
  const double per_second_;
  std::mutex mu_;
  double tokens_;
  Clock::time_point at_ = Clock::now();
};

}  // namespace ferry::shortlink
