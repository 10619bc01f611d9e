#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace ferry::cluster {

// A token bucket bounding retries (failover attempts and backup requests) to `ratio` of calls
// plus `min_per_second`, so that a sick cluster is not hit by a retry storm: every call
// deposits `ratio` of a token, every retry spends a whole one, and `min_per_second` tokens a
// second are added regardless so that a quiet client can still retry. The bucket starts with
// one second of `min_per_second` and holds at most 10 seconds of it (at least 10 tokens), so a
// long healthy spell cannot bank a storm either.
//
// Lock-free. A call's deposit only reads the shared balance while the bucket is full, which it
// is while nothing fails, so healthy calls do not bounce its cache line between cores.
class RetryBudget {
 public:
  using Clock = std::chrono::steady_clock;

  RetryBudget(double ratio, uint32_t min_per_second, Clock::time_point now = Clock::now());

  void Deposit();
  // Takes one token; false (taking nothing) when less than one is left.
  bool TrySpend(Clock::time_point now = Clock::now());

 private:
  static constexpr int64_t kToken = 1000;  // the balance is kept in thousandths of a token

  void Refill(Clock::time_point now);

  const int64_t deposit_;      // per call
  const uint32_t per_second_;  // whole tokens per second
  const int64_t capacity_;
  std::atomic<int64_t> balance_;
  // Up to when min_per_second has been credited, in Clock ticks.
  std::atomic<int64_t> refilled_until_;
};

}  // namespace ferry::cluster
