#pragma once

#include <array>
#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "token_bucket.h"

namespace ferry::plugins {

// Token buckets by key (a method or a caller), created full on first use. The keys are spread
// over shards with a mutex each, so concurrent calls contend only when their keys share a
// shard. About `max_keys` buckets at most (each shard holds its share, rounded up): a full shard
// first forgets buckets that have refilled (no loss), then its least recently used one.
class BucketMap {
 public:
  explicit BucketMap(size_t max_keys);

  // `limit` applies to the bucket of `key` when it is created; it must outlive the map.
  bool TryTake(std::string_view key, const RateLimit& limit, RateClock::time_point now);
  size_t size() const;

 private:
  // Looked up by string_view, so that a call's key is not copied unless it is new.
  struct KeyHash {
    using is_transparent = void;
    size_t operator()(std::string_view key) const { return std::hash<std::string_view>()(key); }
  };
  struct Shard {
    mutable std::mutex mu;
    std::unordered_map<std::string, TokenBucket, KeyHash, std::equal_to<>> buckets;
  };
  static constexpr size_t kShards = 16;

  void MakeRoom(Shard& shard, RateClock::time_point now);

  const size_t max_per_shard_;
  std::array<Shard, kShards> shards_;
};

}  // namespace ferry::plugins
