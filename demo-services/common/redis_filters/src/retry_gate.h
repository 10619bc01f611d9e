#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace ferry::redis_filters {

// After a failure, closed for `retry_after`: callers then skip Redis instead of each waiting
// for its own timeout while it is down. The first caller after that tries again.
class RetryGate {
 public:
  explicit RetryGate(std::chrono::milliseconds retry_after) : retry_after_(retry_after) {}

  bool open() const { return Now() >= closed_until_.load(std::memory_order_relaxed); }
  void Failed() {
    closed_until_.store(Now() + retry_after_.count() * 1000000, std::memory_order_relaxed);
  }

 private:
  static int64_t Now() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

  std::chrono::milliseconds retry_after_;
  std::atomic<int64_t> closed_until_{0};
};

}  // namespace ferry::redis_filters
