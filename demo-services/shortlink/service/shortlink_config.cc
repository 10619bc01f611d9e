#include "service/shortlink_config.h"

#include <algorithm>

namespace ferry::shortlink {

void ReadShortLinkConfig(config::ConfigReader& service, ShortLinkConfig* out) {
  ShortLinkConfig& c = *out;
  storage::ReadBackendConfig(service, &c);

  service.String("public_base_url", &c.public_base_url);
  if (!c.public_base_url.starts_with("http://") && !c.public_base_url.starts_with("https://")) {
    service.Invalid("public_base_url",
                    "expected an http:// or https:// URL, got '" + c.public_base_url + "'");
  }
  while (c.public_base_url.ends_with('/')) c.public_base_url.pop_back();
  service.StringList("own_hosts", &c.own_hosts);
  service.Integer("max_url_length", 16, 65536, &c.max_url_length);
  service.Integer("not_found_per_minute", 0, 1'000'000, &c.not_found_per_minute);
  service.String("admin_token_sha256", &c.admin_token_sha256);
  if (!c.admin_token_sha256.empty() &&
      (c.admin_token_sha256.size() != 64 ||
       !std::all_of(c.admin_token_sha256.begin(), c.admin_token_sha256.end(), [](char ch) {
         return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f');
       }))) {
    service.Invalid("admin_token_sha256", "expected 64 lower-case hex digits (sha256sum)");
  }

  config::ConfigReader codes = service.Section("codes");
  codes.String("generator", &c.code_generator);
  if (c.code_generator != "segment" && c.code_generator != "random") {
    codes.Invalid("generator", "expected segment or random, got '" + c.code_generator + "'");
  }
  codes.Integer("segment_step", 1, 1'000'000, &c.segment_step);
  codes.Integer("length", 7, 32, &c.random_length);
  codes.Integer("attempts", 1, 100, &c.code_attempts);
  codes.RejectUnknownKeys();

  config::ConfigReader cache = service.Section("cache");
  cache.Integer("ttl_ms", 1, 86'400'000 * 30LL, &c.cache_ttl_ms);
  cache.Integer("absent_ttl_ms", 1, 3'600'000, &c.absent_ttl_ms);
  cache.Integer("hot_ttl_ms", 0, 1000, &c.hot_ttl_ms);
  cache.Integer("hot_entries", 1, 100'000'000, &c.hot_entries);
  cache.Integer("local_entries", 1, 100'000'000, &c.local_entries);
  cache.Integer("change_poll_ms", 50, 60'000, &c.change_poll_ms);
  cache.RejectUnknownKeys();

  config::ConfigReader read_path = service.Section("read_path");
  read_path.Integer("redis_timeout_ms", 5, 1000, &c.read_redis_timeout_ms);
  read_path.Integer("breaker_failures", 1, 1000, &c.breaker_failures);
  read_path.Integer("breaker_open_ms", 10, 600'000, &c.breaker_open_ms);
  read_path.Integer("database_per_second", 1, 1'000'000, &c.fallback_queries_per_second);
  read_path.Integer("stale_ms", 0, 3'600'000, &c.fallback_stale_ms);
  read_path.RejectUnknownKeys();

  config::ConfigReader bloom = service.Section("bloom");
  bloom.Double("false_positive_rate", 1e-6, 0.1, &c.bloom_false_positive_rate);
  bloom.Integer("check_interval_ms", 10, 3'600'000, &c.bloom_check_interval_ms);
  bloom.RejectUnknownKeys();

  config::ConfigReader cleanup = service.Section("cleanup");
  cleanup.Integer("interval_ms", 0, 86'400'000, &c.cleanup_interval_ms);
  cleanup.Integer("batch", 1, 100'000, &c.cleanup_batch);
  cleanup.RejectUnknownKeys();

  config::ConfigReader stats = service.Section("stats");
  stats.Integer("interval_ms", 10, 60'000, &c.stats_interval_ms);
  stats.Integer("batch", 1, 10'000, &c.stats_batch);
  stats.Integer("queue", 1, 10'000'000, &c.stats_queue);
  stats.Integer("claim_idle_ms", 1, 86'400'000, &c.stats_claim_idle_ms);
  stats.Integer("max_deliveries", 1, 1000, &c.stats_max_deliveries);
  stats.String("consumer", &c.stats_consumer);
  stats.Integer("stream_max_entries", 1000, 1'000'000'000, &c.stats_stream_max_entries);
  stats.Integer("event_retention_ms", 3'600'000, 366 * 86'400'000LL, &c.stats_event_retention_ms);
  stats.RejectUnknownKeys();
}

}  // namespace ferry::shortlink
