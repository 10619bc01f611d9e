#include "bucket_map.h"

#include <algorithm>
#include <iterator>

namespace ferry::plugins {

// Rounded up: the map holds at least `max_keys` buckets before it forgets any.
BucketMap::BucketMap(size_t max_keys)
    : max_per_shard_(std::max<size_t>(1, max_keys / kShards + (max_keys % kShards != 0))) {}

bool BucketMap::TryTake(std::string_view key, const RateLimit& limit, RateClock::time_point now) {
  Shard& shard = shards_[KeyHash()(key) % kShards];
  std::lock_guard lock(shard.mu);
  auto it = shard.buckets.find(key);
  if (it == shard.buckets.end()) {
    if (shard.buckets.size() >= max_per_shard_) MakeRoom(shard, now);
    it = shard.buckets.emplace(std::string(key), TokenBucket(limit, now)).first;
  }
  return it->second.TryTake(now);
}

size_t BucketMap::size() const {
  size_t total = 0;
  for (const Shard& shard : shards_) {
    std::lock_guard lock(shard.mu);
    total += shard.buckets.size();
  }
  return total;
}

void BucketMap::MakeRoom(Shard& shard, RateClock::time_point now) {
  std::erase_if(shard.buckets, [&](const auto& entry) { return entry.second.FullAt(now); });
  if (shard.buckets.size() < max_per_shard_) return;
  shard.buckets.erase(std::min_element(
      shard.buckets.begin(), shard.buckets.end(),
      [](const auto& a, const auto& b) { return a.second.last_used() < b.second.last_used(); }));
}

}  // namespace ferry::plugins
