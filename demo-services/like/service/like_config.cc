#include "service/like_config.h"

#include <charconv>

namespace ferry::like {

namespace {

void ReadBuckets(config::ConfigReader& buckets, LikeConfig* c) {
  buckets.Integer("default", 1, 1024, &c->default_buckets);
  config::ConfigReader hot = buckets.Section("hot");
  for (const std::string& key : buckets.KeysOf("hot")) {
    int64_t content = 0;
    auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), content);
    if (ec != std::errc() || end != key.data() + key.size() || content <= 0) {
      buckets.Invalid("hot", "expected content ids (integers > 0) as keys, got '" + key + "'");
      continue;
    }
    uint32_t n = c->default_buckets;
    hot.Integer(key, 1, 1024, &n);
    c->hot[content] = n;
  }
  buckets.Integer("raise_above_writes_per_s", 0, 100000000, &c->raise_above_writes_per_s);
  buckets.Integer("max", 1, 1024, &c->max_buckets);
  buckets.RejectUnknownKeys();
}

}  // namespace

void ReadLikeConfig(config::ConfigReader& service, LikeConfig* out) {
  LikeConfig& c = *out;
  service.String("write_mode", &c.write_mode);
  if (c.write_mode != "redis-first" && c.write_mode != "database-first") {
    service.Invalid("write_mode",
                    "expected redis-first or database-first, got '" + c.write_mode + "'");
  }
  // Before the backend's keys, which may set it: the default follows the write mode.
  c.redis_persistence_check = c.write_mode == "database-first" ? "warn" : "refuse";
  storage::ReadBackendConfig(service, &c);
  service.Integer("partitions", 1, 1024, &c.partitions);
  config::ConfigReader buckets = service.Section("buckets");
  ReadBuckets(buckets, &c);

  service.Integer("count_cache_ms", 0, 2000, &c.count_cache_ms);
  service.Integer("count_cache_entries", 1, 1 << 26, &c.count_cache_entries);
  service.Integer("empty_cache_ms", 0, 3600000, &c.empty_cache_ms);

  config::ConfigReader writer = service.Section("event_writer");
  writer.Integer("threads", 0, 64, &c.writer_threads);
  writer.Integer("batch", 1, 10000, &c.writer_batch);
  writer.Integer("interval_ms", 1, 60000, &c.writer_interval_ms);
  writer.Integer("lease_ms", 100, 600000, &c.writer_lease_ms);
  writer.Integer("max_failures", 1, 1000, &c.writer_max_failures);
  writer.Integer("max_backlog", 0, 100000000, &c.writer_max_backlog);
  writer.RejectUnknownKeys();

  config::ConfigReader tombstones = service.Section("tombstones");
  tombstones.Integer("redis_keep_ms", 1000, 31536000000, &c.tombstone_redis_keep_ms);
  tombstones.Integer("database_keep_ms", 3600000, 31536000000, &c.tombstone_database_keep_ms);
  tombstones.RejectUnknownKeys();

  config::ConfigReader feed = service.Section("feed");
  feed.Integer("retention_ms", 0, 31536000000, &c.feed_retention_ms);
  feed.RejectUnknownKeys();

  config::ConfigReader generation = service.Section("redis_generation");
  generation.Integer("check_ms", 100, 60000, &c.generation_check_ms);
  generation.RejectUnknownKeys();

  config::ConfigReader reconciler = service.Section("reconciler");
  reconciler.Integer("interval_ms", 0, 86400000, &c.reconcile_interval_ms);
  reconciler.Bool("repair", &c.reconcile_repair);
  reconciler.Integer("contents_per_run", 1, 1000000, &c.reconcile_contents);
  reconciler.RejectUnknownKeys();

  config::ConfigReader requests = service.Section("request_ids");
  requests.Integer("ttl_ms", 0, 86400000, &c.request_ttl_ms);
  requests.RejectUnknownKeys();
}

}  // namespace ferry::like
