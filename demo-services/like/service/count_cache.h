#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "ferry/codec/status.h"

namespace ferry::like {

// Per-bucket counts of contents, held in process for at most `max_age`, so that reads of a hot
// content's total hit the store once per max_age instead of once per read. Only totals are
// cached: whether a user likes something is never answered from here.
class CountCache {
 public:
  using Loader = std::function<Status(int64_t content_id, std::vector<int64_t>* buckets)>;
  using Clock = std::function<std::chrono::steady_clock::time_point()>;

  CountCache(std::chrono::milliseconds max_age, size_t max_entries, Loader loader,
             Clock clock = std::chrono::steady_clock::now)
      : max_age_(max_age),
        max_entries_(max_entries),
        loader_(std::move(loader)),
        clock_(std::move(clock)) {}

  // The content's total, from the cache when the entry is younger than max_age.
  Status Total(int64_t content_id, int64_t* total);
  // A bucket's exact count as a write just saw it: the total a writer answers includes its own
  // change. Other buckets keep their age.
  int64_t UpdateBucket(int64_t content_id, uint32_t bucket, int64_t count);

 private:
  struct Entry {
    std::vector<int64_t> buckets;
    std::chrono::steady_clock::time_point loaded;
  };
  static int64_t Sum(const std::vector<int64_t>& buckets);

  const std::chrono::milliseconds max_age_;
  const size_t max_entries_;
  const Loader loader_;
  const Clock clock_;
  std::mutex mutex_;
  std::unordered_map<int64_t, Entry> entries_;  // guarded by mutex_
};

}  // namespace ferry::like
