#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ferry/framework/config_reader.h"
#include "ferry/storage/backend_config.h"

namespace ferry::shortlink {

// The provider's own `service:` section (README, "Configuration").
struct ShortLinkConfig : storage::BackendConfig {
  ShortLinkConfig() {
    sqlite_path = "shortlink.db";
    mariadb.database = "ferry_shortlink";
    // Redis holds caches rebuilt from the database and visits not yet counted, never a link:
    // unsafe settings are logged, not refused (README, "What can be lost").
    redis_persistence_check = "warn";
  }

  // public_base_url: what short URLs start with; its host is refused as a target.
  std::string public_base_url = "http://127.0.0.1:7201";
  std::vector<std::string> own_hosts;  // own_hosts: more hosts that are this service
  uint32_t max_url_length = 2048;      // max_url_length
  // not_found_per_minute: 404s a client (an address, IPv6 by /64) may get a minute; then 429
  // for every redirect until its allowance refills. 0: no limit.
  uint32_t not_found_per_minute = 60;
  // admin_token_sha256: SHA-256 (hex) of the token admin calls carry; empty: admin calls off.
  std::string admin_token_sha256;

  std::string code_generator = "random";  // codes.generator: random | segment (enumerable)
  int64_t segment_step = 1000;            // codes.segment_step
  uint32_t random_length = 8;             // codes.length (random)
  uint32_t code_attempts = 8;             // codes.attempts

  int64_t cache_ttl_ms = 3'600'000;    // cache.ttl_ms
  int64_t absent_ttl_ms = 60'000;      // cache.absent_ttl_ms
  int64_t hot_ttl_ms = 1000;           // cache.hot_ttl_ms (at most 1000)
  uint32_t hot_entries = 100'000;      // cache.hot_entries
  uint32_t local_entries = 1'000'000;  // cache.local_entries (embedded)

  // read_path.*: redis+mariadb lookups when Redis is slow or gone (README, "Read path").
  uint32_t read_redis_timeout_ms = 100;        // read_path.redis_timeout_ms
  uint32_t breaker_failures = 5;               // read_path.breaker_failures
  int64_t breaker_open_ms = 1000;              // read_path.breaker_open_ms
  uint32_t fallback_queries_per_second = 200;  // read_path.database_per_second
  int64_t fallback_stale_ms = 60'000;          // read_path.stale_ms
  // cache.change_poll_ms: redis+mariadb, how often the change log is read (README, "Read path").
  int64_t change_poll_ms = 1000;
  // bloom.false_positive_rate: what the filter is sized for (with room for twice the links),
  // and built again larger when the links outgrow it.
  double bloom_false_positive_rate = 0.001;
  // bloom.check_interval_ms: the redis+mariadb job reloading a missing or suspect filter and
  // repeating failed cache writes.
  int64_t bloom_check_interval_ms = 1000;

  int64_t cleanup_interval_ms = 60'000;  // cleanup.interval_ms; 0: off
  uint32_t cleanup_batch = 500;          // cleanup.batch

  int64_t stats_interval_ms = 200;       // stats.interval_ms: the consumer's polling period
  uint32_t stats_batch = 500;            // stats.batch: events per database transaction
  uint32_t stats_queue = 100'000;        // stats.queue: visits queued for the log at most
  int64_t stats_claim_idle_ms = 30'000;  // stats.claim_idle_ms: XAUTOCLAIM's idle time
  uint32_t stats_max_deliveries = 5;     // stats.max_deliveries: then the dead-letter stream
  std::string stats_consumer;            // stats.consumer: group member name; empty: host-pid
  // stats.stream_max_entries: redis+mariadb, the visit stream's bound (README, "Statistics").
  int64_t stats_stream_max_entries = 1'000'000;
  // stats.event_retention_ms: how long counted event ids are kept to recognise a redelivery.
  int64_t stats_event_retention_ms = 7 * 86'400'000LL;
};

void ReadShortLinkConfig(config::ConfigReader& service, ShortLinkConfig* out);

}  // namespace ferry::shortlink
