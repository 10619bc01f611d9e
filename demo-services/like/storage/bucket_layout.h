#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <string_view>
#include <utility>

namespace ferry::like {

// How many buckets a content's likes are split into, and which one a user's like is in. A hot
// content gets more buckets so that its writes spread over several keys (and Redis nodes):
// named in the config, or raised (doubled) at run time once detected hot, which the database
// records (like_layout) for every provider.
class BucketLayout {
 public:
  BucketLayout(uint32_t default_buckets, std::map<int64_t, uint32_t> hot)
      : default_(default_buckets), hot_(std::move(hot)) {}

  uint32_t BucketsOf(int64_t content_id) const {
    auto it = hot_.find(content_id);
    const uint32_t configured = it == hot_.end() ? default_ : it->second;
    std::lock_guard lock(mutex_);
    auto raised = raised_.find(content_id);
    return raised == raised_.end() ? configured : std::max(configured, raised->second);
  }
  uint32_t BucketOf(int64_t content_id, std::string_view user_id) const {
    return BucketIn(user_id, BucketsOf(content_id));
  }
  static uint32_t BucketIn(std::string_view user_id, uint32_t buckets) {
    return static_cast<uint32_t>(UserHash(user_id) % buckets);
  }
  // A bucket count the database recorded for the content (a raise); never lowers it.
  void Raise(int64_t content_id, uint32_t buckets) {
    std::lock_guard lock(mutex_);
    uint32_t& n = raised_[content_id];
    if (buckets > n) n = buckets;
  }

  // FNV-1a: stable across processes and builds (std::hash is not), so every provider and the
  // database agree on a user's bucket.
  static uint64_t UserHash(std::string_view user_id) {
    uint64_t h = 14695981039346656037ull;
    for (unsigned char c : user_id) {
      h ^= c;
      h *= 1099511628211ull;
    }
    return h;
  }

 private:
  const uint32_t default_;
  const std::map<int64_t, uint32_t> hot_;
  mutable std::mutex mutex_;
  std::map<int64_t, uint32_t> raised_;  // guarded by mutex_
};

}  // namespace ferry::like
