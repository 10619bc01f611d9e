#pragma once

#include <array>
#include <atomic>
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
// bucket, taken from without a lock, for the filter's whole life. A call reaches its bucket
// through a table indexed by ServerContext::method_id(), or else through a per-thread memo by
// the id or, in a context without one, by the address of the method's name, which a server never
// moves: it builds, hashes and looks up "<service>/<method>" only the first time.
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
  // `method_id`: ServerContext::method_id(), or 0. Inline: every call of a limited server
  // takes this path, and nearly always finds its bucket by the method's id at once.
  Taken TryTake(std::string_view service, std::string_view method, uint64_t method_id,
                RateClock::time_point now) {
    Bucket* bucket = method_id < kIndexedIds
                         ? by_method_id_[method_id].load(std::memory_order_acquire)
                         : nullptr;
    if (bucket == nullptr) bucket = &Lookup(service, method, method_id, now);
    Taken taken{.ok = true, .limit = bucket->limit, .method_key = bucket->key};
    if (bucket->limit != nullptr) taken.ok = bucket->tokens.TryTake(now);
    return taken;
  }

 private:
  struct Bucket {
    Bucket(std::string key, const RateLimit* limit, RateClock::time_point now);
    const std::string key;
    const RateLimit* const limit;  // null: unlimited, and `tokens` is unused
    AtomicTokenBucket tokens;
  };
  // Method ids come from a process-wide counter that servers draw from as they register their
  // methods (and connections as they learn auth tokens), so the methods of a server started with
  // the process have small ones: below this, a method's bucket is found by its id alone.
  static constexpr uint64_t kIndexedIds = 256;

  // The bucket of a method not (yet) in by_method_id_.
  Bucket& Lookup(std::string_view service, std::string_view method, uint64_t method_id,
                 RateClock::time_point now);

  Bucket& Find(std::string_view service, std::string_view method, RateClock::time_point now);

  const uint64_t id_;  // tags this instance's entries in the per-thread memo; never reused
  const LimitOf limit_of_;
  std::mutex mu_;  // guards buckets_: taken on a thread's first call of a method only
  std::unordered_map<std::string, std::unique_ptr<Bucket>> buckets_;
  // Set once per method, then only read: no shared write on the call path.
  std::array<std::atomic<Bucket*>, kIndexedIds> by_method_id_{};
};

}  // namespace ferry::plugins
