#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>

namespace ferry::shortlink {

// Stops calling a dependency that keeps failing: closed, it lets every call through and opens
// after `failures_to_open` failures in a row; open, it lets none through for `open_for`; then
// half-open, it lets one probe through at a time, and a probe that succeeds closes it (one that
// fails opens it again).
class CircuitBreaker {
 public:
  using Clock = std::chrono::steady_clock;
  CircuitBreaker(uint32_t failures_to_open, std::chrono::milliseconds open_for)
      : failures_to_open_(failures_to_open), open_for_(open_for) {}

  // Whether to make the call; a true answer must be followed by Succeeded() or Failed().
  bool Allow(Clock::time_point now = Clock::now());
  void Succeeded();
  void Failed(Clock::time_point now = Clock::now());
  bool open() const;
  uint64_t openings() const;

 private:
  enum class State { kClosed, kOpen, kHalfOpen };
  const uint32_t failures_to_open_;
  const std::chrono::milliseconds open_for_;
  mutable std::mutex mu_;
  State state_ = State::kClosed;  // guarded by mu_
  uint32_t failures_ = 0;
  bool probing_ = false;
  Clock::time_point opened_at_;
  uint64_t openings_ = 0;
};

}  // namespace ferry::shortlink
