#pragma once

#include <memory>

#include "service/count_cache.h"
#include "service/hot_detector.h"
#include "storage/bucket_layout.h"
#include "storage/like_database.h"
#include "storage/like_store.h"
#include "storage/redis_like_store.h"

namespace ferry::like {

// What the handlers and jobs of one provider share.
struct LikeCore {
  LikeStore* store = nullptr;        // the state: SQL (database-first), Redis (redis-first)
  LikeDatabase* database = nullptr;  // the record; lists and reconciliation read it
  RedisLikeStore* redis = nullptr;   // redis+mariadb: the buckets reconciliation compares
  bool outbox_relayed = false;       // database-first: outbox rows are changes Redis lacks
  BucketLayout* layout = nullptr;
  std::unique_ptr<CountCache> counts;
  std::unique_ptr<HotDetector> hot;  // null when raising at run time is off  // totals for
                                     // GetCounts, at most count_cache_ms old
};

}  // namespace ferry::like
