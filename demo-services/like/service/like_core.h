#pragma once

#include <memory>
#include <string>

#include "service/blocking_tasks.h"
#include "service/count_cache.h"
#include "service/hot_detector.h"
#include "storage/bucket_layout.h"
#include "storage/like_database.h"
#include "storage/like_store.h"
#include "storage/redis_like_store.h"
#include "storage/redis_partition_log.h"

namespace ferry::like {

// What the handlers and jobs of one provider share.
struct LikeCore {
  LikeStore* store = nullptr;        // the state the handlers read and write
  LikeDatabase* database = nullptr;  // the record; lists, the feed and reconciliation read it
  RedisLikeStore* redis = nullptr;   // redis+mariadb: the buckets reconciliation compares
  RedisPartitionLog* log = nullptr;  // redis+mariadb: the partitions' streams
  // Redis-first: SetLike runs asynchronously on it, finishing on `blocking` when it must wait.
  RedisLikeStore* async_store = nullptr;
  BlockingTasks* blocking = nullptr;
  int async_limit = 4096;       // SetLikes in flight asynchronously at most; more run synchronously
  bool outbox_relayed = false;  // database-first: outbox rows are changes Redis lacks
  BucketLayout* layout = nullptr;
  std::unique_ptr<CountCache> counts;  // totals for GetCounts, at most count_cache_ms old
  std::unique_ptr<HotDetector> hot;    // null when raising at run time is off
  std::string process;                 // this provider, as leases name their holders
  // Changes older than this for a pair the record has no row of are not applied (the record
  // drops tombstones this old), and dead letters this old are not re-driven.
  int64_t horizon_ms = 7LL * 24 * 3600 * 1000;
};

}  // namespace ferry::like
