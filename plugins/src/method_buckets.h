#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "atomic_token_bucket.h"
#include "method_key.h"
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
  // `method_id`: ServerContext::method_id(), or 0. Inline: every call of a limited server
  // takes this path, and its bucket is nearly always in the memo.
  Taken TryTake(std::string_view service, std::string_view method, uint64_t method_id,
                RateClock::time_point now) {
    // Per thread, direct-mapped by the method's id, or else by the address of its name. Method
    // ids are never reused; entries found by address are checked against the name itself, so an
    // address reused for another name only costs a miss. Only this instance's entries are
    // followed, since buckets live as long as their instance.
    thread_local std::array<MemoEntry, kMemoSlots> memo;
    const uint64_t key = method_id != 0 ? method_id : reinterpret_cast<uintptr_t>(method.data());
    MemoEntry& entry = memo[((key >> 3) ^ (key >> 11) ^ key ^ id_) % kMemoSlots];
    Bucket* bucket = entry.bucket;
    if (entry.owner != id_ || entry.method_id != method_id ||
        (method_id == 0 && !IsMethodKey(bucket->key, service, method))) {
      bucket = &Find(service, method, now);
      entry = MemoEntry{id_, method_id, bucket};
    }
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
  struct MemoEntry {
    uint64_t owner = 0;
    uint64_t method_id = 0;
    Bucket* bucket = nullptr;
  };
  static constexpr size_t kMemoSlots = 64;

  Bucket& Find(std::string_view service, std::string_view method, RateClock::time_point now);

  const uint64_t id_;  // tags this instance's entries in the per-thread memo; never reused
  const LimitOf limit_of_;
  std::mutex mu_;  // guards buckets_: taken on a thread's first call of a method only
  std::unordered_map<std::string, std::unique_ptr<Bucket>> buckets_;
};

}  // namespace ferry::plugins
