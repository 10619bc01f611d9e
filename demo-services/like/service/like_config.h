#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "ferry/framework/config_reader.h"
#include "ferry/storage/backend_config.h"

namespace ferry::like {

// The provider's own `service:` section (README, "like-server configuration").
struct LikeConfig : storage::BackendConfig {
  LikeConfig() {
    sqlite_path = "like.db";
    mariadb.database = "ferry_like";
    // redis.persistence_check: refuse for redis-first (the default write_mode), where a confirmed
    // change lives only in Redis until an event writer persists it; ReadLikeConfig makes it warn
    // for database-first, where Redis holds a copy rebuilt from the database (README, "What
    // redis-first can lose").
    redis_persistence_check = "refuse";
  }

  // write_mode (redis+mariadb): redis-first (a change is confirmed once Redis holds it and its
  // stream entry; the event writers persist it) or database-first (confirmed once the database
  // committed it; Redis is not written).
  std::string write_mode = "redis-first";

  // partitions (redis+mariadb): how many partitions (hash slots, each with its change stream
  // and one owner) the Redis keys are laid out in; recorded in the database on first start
  // and never changed afterwards. Embedded has one.
  uint32_t partitions = 64;

  uint32_t default_buckets = 4;     // buckets.default
  std::map<int64_t, uint32_t> hot;  // buckets.hot: {content_id: buckets}
  // buckets.raise_above_writes_per_s: a content changed more often than this within a second
  // on one provider gets twice its buckets, up to buckets.max (0: never raised at run time;
  // redis-first and embedded). Repeats and replays do not count.
  int64_t raise_above_writes_per_s = 5000;
  uint32_t max_buckets = 64;               // buckets.max
  int64_t count_cache_ms = 1000;           // count_cache_ms: staleness of GetCounts, 0 to 2000
  uint32_t count_cache_entries = 1 << 20;  // count_cache_entries
  int64_t empty_cache_ms = 10000;          // empty_cache_ms: a content nobody liked, remembered

  uint32_t writer_threads = 2;          // event_writer.threads; 0: other providers persist
  uint32_t writer_batch = 256;          // event_writer.batch: entries per partition and step
  int64_t writer_interval_ms = 5;       // event_writer.interval_ms (when idle)
  int64_t writer_lease_ms = 3000;       // event_writer.lease_ms: a dead writer's partitions wait
  int64_t writer_max_failures = 3;      // event_writer.max_failures, then dead-lettered
  int64_t writer_max_backlog = 200000;  // event_writer.max_backlog: per partition, then refused

  int64_t tombstone_redis_keep_ms = 3600000;            // tombstones.redis_keep_ms
  int64_t tombstone_database_keep_ms = 7LL * 86400000;  // tombstones.database_keep_ms
  int64_t feed_retention_ms = 86400000;                 // feed.retention_ms
  int64_t generation_check_ms = 1000;                   // redis_generation.check_ms

  int64_t reconcile_interval_ms = 0;  // reconciler.interval_ms; 0: only on request
  bool reconcile_repair = false;      // reconciler.repair: the job repairs what it finds
  uint32_t reconcile_contents = 100;  // reconciler.contents_per_run
  // request_ids.ttl_ms: how long a SetLike's request id is remembered at least, so that the
  // same id again answers its first result (0: not remembered; retries still cannot toggle).
  int64_t request_ttl_ms = 120000;
};

// Reads the provider's `service:` section (absent keys keep their defaults), reporting mistakes
// through `service` (App::ReadServiceConfig).
void ReadLikeConfig(config::ConfigReader& service, LikeConfig* out);

}  // namespace ferry::like
