#pragma once

#include <algorithm>
#include <chrono>
#include <string>

namespace ferry::plugins {

using RateClock = std::chrono::steady_clock;

struct RateLimit {
  double rate = 0;          // tokens added per second
  double burst = 0;         // capacity: calls allowed at once after a quiet period
  std::string description;  // "100/s, burst 20", for rejection messages
  // Taken from the filter's store (RateLimitStore) instead of this process's buckets, under
  // `name` ("per_user", "per_method:<service>/<method>", ...).
  bool shared = false;
  std::string name;
};

// Classic token bucket, created full. Not thread-safe: BucketMap guards it. `limit` must
// outlive it.
class TokenBucket {
 public:
  TokenBucket(const RateLimit& limit, RateClock::time_point now)
      : limit_(&limit), tokens_(limit.burst), last_(now) {}

  bool TryTake(RateClock::time_point now) {
    tokens_ = std::min(limit_->burst, TokensAt(now));
    last_ = std::max(last_, now);
    if (tokens_ < 1) return false;
    tokens_ -= 1;
    return true;
  }

  // Refilled to capacity by `now`: such a bucket is no different from a new one, so it can be
  // forgotten without loosening the limit.
  bool FullAt(RateClock::time_point now) const { return TokensAt(now) >= limit_->burst; }

  RateClock::time_point last_used() const { return last_; }

 private:
  double TokensAt(RateClock::time_point now) const {
    const double elapsed = std::max(0.0, std::chrono::duration<double>(now - last_).count());
    return tokens_ + elapsed * limit_->rate;
  }

  const RateLimit* limit_;
  double tokens_;
  RateClock::time_point last_;
};

}  // namespace ferry::plugins
