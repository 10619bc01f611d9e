#pragma once

#include <memory>

#include "ferry/storage/redis_connection_pool.h"
#include "ferry/storage/redis_script_set.h"
#include "storage/bucket_layout.h"
#include "storage/like_database.h"
#include "storage/like_event.h"
#include "storage/like_store.h"

namespace ferry::like {

// What Redis holds of one content, summed over its buckets.
struct CacheCounts {
  int64_t count = 0;    // the count strings
  int64_t members = 0;  // the membership sets' sizes
  int64_t pending = 0;  // stream entries not yet persisted
};

// Redis-first: the bucket's membership, count, version and stream entry change in one script;
// the event writers carry each entry to the database afterwards. A bucket Redis does not hold
// (first use, or Redis restarted empty) is loaded from the database before it is used, with
// the rows' versions as its baseline.
class RedisLikeStore final : public LikeStore {
 public:
  // `pool`, `database` and `layout` must outlive the store.
  RedisLikeStore(storage::RedisConnectionPool* pool, LikeDatabase* database,
                 const BucketLayout* layout);

  // Loads the scripts (UNAVAILABLE when Redis is unreachable).
  Status Connect();

  Status SetLike(int64_t content_id, const std::string& user_id, bool liked,
                 SetLikeResult* out) override;
  Status BucketCounts(int64_t content_id, std::vector<int64_t>* out) override;
  Status HasLiked(const std::string& user_id, std::span<const int64_t> content_ids,
                  std::vector<bool>* out) override;

  Status ReadCacheCounts(int64_t content_id, CacheCounts* out);
  // Loads the bucket from the database: only if Redis does not hold it, or (`force`, a
  // repair) replacing what it holds; versions never go down either way.
  Status LoadBucket(int64_t content_id, uint32_t bucket, bool force);
  // Database-first: brings a committed change (an outbox row) into its bucket if newer than
  // what the bucket holds. A bucket Redis does not hold is loaded from the database, which
  // already has the change.
  Status ApplyChange(const LikeEvent& change);

 private:
  storage::RedisConnectionPool* const pool_;
  LikeDatabase* const database_;
  const BucketLayout* const layout_;
  storage::RedisScriptSet scripts_;
};

}  // namespace ferry::like
