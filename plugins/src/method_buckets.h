#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "atomic_token_bucket.h"
#include "token_bucket.h"

namespace ferry::plugins {

// The ratelimit filter's buckets per method. A server serves few methods, so each has one
// bucket, taken from without a lock, for the filter's whole life. Each thread remembers which
// bucket a method uses, by ServerContext::method_id() (or, in a context without one, by the
// address of the method's name, which a server never moves): a call usually reaches its bucket
// without building, hashing or looking up "<service>/<method>".
class MethodBuckets {
 public:
  // The limit of a method, by "<service>/<method>"; nullptr when it has none. Asked once per
  // method; what it returns must outlive the buckets.
  using LimitOf = std::function<const RateLimit*(std::string_view method_key)>;

  explicit MethodBuckets(LimitOf limit_of);
  MethodBuckets(const MethodBuckets&) = delete;
  MethodBuckets& operator=(const MethodBuckets&) = delete;

  struct Taken {
    bool ok = true;                    // false: the method's bucket is empty
    const RateLimit* limit = nullptr;  // the method's, when it has one
    std::string_view method_key;       // valid while the buckets live
  };
  // `method_id`: ServerContext::method_id(), or 0.
  Taken TryTake(std::string_view service, std::string_view method, uint64_t method_id,
                RateClock::time_point now);

 private:
  struct Bucket {
    Bucket(std::string key, const RateLimit* limit, RateClock::time_point now);
    const std::string key;
    const RateLimit* const limit;  // null: unlimited, and `tokens` is unused
    AtomicTokenBucket tokens;
  };

  Bucket& Find(std::string_view service, std::string_view method, RateClock::time_point now);

  const uint64_t id_;  // tags this instance's entries in the per-thread memo; never reused
  const LimitOf limit_of_;
  std::mutex mu_;  // guards buckets_: taken on a thread's first call of a method only
  std::unordered_map<std::string, std::unique_ptr<Bucket>> buckets_;
};

}  // namespace ferry::plugins
