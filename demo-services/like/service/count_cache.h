#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <list>
#include <memory>
#include <mutex>
#include <span>
#include <unordered_map>
#include <vector>

#include "ferry/codec/status.h"
#include "storage/like_store.h"

namespace ferry::like {

// Contents' counts held in process for at most `max_age`, so that reads of a hot content hit
// the store once per max_age rather than once per read. No answer uses an entry older than
// max_age; misses of one call are loaded in one batch, and a miss another call is already
// loading waits for that load instead of loading again; when full, the least recently used
// entries go. Only counts are cached: whether a user likes something is never answered here.
class CountCache {
 public:
  using Loader =
      std::function<Status(std::span<const int64_t> content_ids, std::vector<ContentCounts>* out)>;
  using Clock = std::function<std::chrono::steady_clock::time_point()>;

  CountCache(std::chrono::milliseconds max_age, size_t max_entries, Loader loader,
             Clock clock = std::chrono::steady_clock::now);

  // The contents' totals, in order.
  Status Totals(std::span<const int64_t> content_ids, std::vector<int64_t>* out);
  Status Total(int64_t content_id, int64_t* total);
  // A bucket's exact count as a write just saw it, in layout `layout`, so that the total a
  // writer answers includes its own change: the total with it, or -1 when no entry younger
  // than max_age holds the content in that layout (the caller reads the total).
  int64_t UpdateBucket(int64_t content_id, uint32_t layout, uint32_t bucket, int64_t count);

  size_t size();

 private:
  struct Entry {
    ContentCounts counts;
    std::chrono::steady_clock::time_point loaded;
    std::list<int64_t>::iterator used;  // its place in the shard's recency list
  };
  struct Flight {
    std::shared_future<Status> done;
    ContentCounts counts;  // set before done is ready
  };
  struct Shard {
    std::mutex mu;
    std::unordered_map<int64_t, Entry> entries;  // guarded by mu
    std::list<int64_t> used;                     // guarded by mu: most recent first
    std::unordered_map<int64_t, std::shared_ptr<Flight>> loading;  // guarded by mu
  };
  static constexpr size_t kShards = 16;

  Shard& ShardOf(int64_t content_id) {
    return shards_[static_cast<uint64_t>(content_id) * 0x9e3779b97f4a7c15ull >> 60];
  }
  // Stores `counts` loaded at `at` (under the shard's lock), evicting the least recently used.
  void Store(Shard& shard, int64_t content_id, const ContentCounts& counts,
             std::chrono::steady_clock::time_point at);

  const std::chrono::milliseconds max_age_;
  const size_t max_per_shard_;
  const Loader loader_;
  const Clock clock_;
  std::array<Shard, kShards> shards_;
};

}  // namespace ferry::like
