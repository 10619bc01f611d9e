#pragma once

#include <memory>
#include <span>
#include <vector>

#include "ferry/framework/filter.h"
#include "ferry/framework/service.h"
#include "ferry/storage/redis_connection_pool.h"
#include "ferry/storage/redis_generation.h"
#include "service/change_follower.h"
#include "service/code_generator.h"
#include "service/hot_link_cache.h"
#include "service/link_resolver.h"
#include "service/periodic_job.h"
#include "service/shortlink_config.h"
#include "service/shortlink_service.h"
#include "service/stats_consumer.h"
#include "service/tenant_keys.h"
#include "service/visit_log.h"
#include "service/visit_recorder.h"
#include "storage/bloom_positions.h"
#include "storage/stats_store.h"

namespace ferry::shortlink {

// One short-link provider: its store, caches, filter, code generator, handlers, statistics
// (recorder, log, consumer) and jobs (the cleanup, the statistics consumer; on
// redis+mariadb the filter's reload after Redis lost it).
class ShortLinkApp final {
 public:
  static Status Create(const ShortLinkConfig& config, std::unique_ptr<ShortLinkApp>* out);
  ~ShortLinkApp() { Stop(); }

  std::span<Service* const> services() { return services_; }
  // The API-key filter, for the server in front of the services (Server::AddFilter).
  const std::shared_ptr<ServerFilter>& api_key_filter() const { return api_key_filter_; }
  void Stop();

  LinkStore& store() { return *store_; }
  // redis+mariadb: the breaker of lookups' Redis calls (null for embedded).
  const CircuitBreaker* read_breaker() const { return breaker_.get(); }
  ShortLinkServiceImpl& service() { return *service_; }
  StatsStore& stats() { return *stats_; }
  VisitRecorder& visits() { return *recorder_; }
  // One step of the statistics consumer (the stats job runs it too).
  Status ConsumeStatsOnce(bool* more) { return consumer_->Step(more); }
  // One pass of the cleanup job: erases the counters of links deleted in the last hour again,
  // and forgets up to cleanup.batch event ids older than stats.event_retention_ms; *forgotten:
  // how many.
  Status CleanupOnce(int* forgotten);

 private:
  ShortLinkApp() = default;
  Status StartStatistics();

  ShortLinkConfig config_;
  std::unique_ptr<LinkStore> store_;
  std::unique_ptr<storage::RedisConnectionPool> redis_;
  std::unique_ptr<storage::RedisGeneration> generation_;  // redis+mariadb
  std::unique_ptr<BloomHasher> hasher_;
  std::unique_ptr<ChangeFollower> follower_;  // redis+mariadb
  // redis+mariadb lookups: their own Redis connections, cache and filter, and what they fall
  // back on while the breaker is open.
  std::unique_ptr<storage::RedisConnectionPool> read_redis_;
  std::unique_ptr<LinkCache> read_cache_;
  std::unique_ptr<CodeFilter> read_filter_;
  std::unique_ptr<CircuitBreaker> breaker_;
  std::unique_ptr<LinkCache> fallback_cache_;
  std::unique_ptr<RateLimiter> fallback_limiter_;
  std::unique_ptr<LinkCache> cache_;
  std::unique_ptr<CodeFilter> filter_;
  std::unique_ptr<HotLinkCache> hot_;
  std::unique_ptr<LinkResolver> resolver_;
  std::unique_ptr<CodeGenerator> codes_;
  std::unique_ptr<TenantKeys> keys_;
  std::unique_ptr<StatsStore> stats_;
  std::unique_ptr<ClientBudget> not_found_budget_;
  std::unique_ptr<DomainStore> domains_;
  std::unique_ptr<DomainTable> domain_table_;
  std::unique_ptr<VisitLog> visit_log_;
  std::unique_ptr<VisitRecorder> recorder_;
  std::unique_ptr<StatsConsumer> consumer_;
  std::unique_ptr<ShortLinkServiceImpl> service_;
  std::shared_ptr<ServerFilter> api_key_filter_;
  std::vector<Service*> services_;
  std::vector<std::unique_ptr<PeriodicJob>> jobs_;
};

}  // namespace ferry::shortlink
