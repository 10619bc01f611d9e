#include "service/shortlink_app.h"

#include <unistd.h>

#include <chrono>

#include "ferry/framework/logging.h"
#include "ferry/storage/redis_persistence.h"
#include "service/api_key_filter.h"
#include "service/change_follower.h"
#include "service/redis_stats_consumer.h"
#include "service/shortlink_metrics.h"
#include "storage/local_code_filter.h"
#include "storage/local_link_cache.h"
#include "storage/redis_code_filter.h"
#include "storage/redis_link_cache.h"

#include <spdlog/spdlog.h>

namespace ferry::shortlink {

namespace {

constexpr std::string_view kVisitStream = "shortlink:visits";
// What Redis alone holds (the cache and the Bloom filter are rebuilt from the database).
constexpr std::string_view kAtStake = "visits not yet counted (the stream shortlink:visits)";

// Unique per process, so that a restarted provider's group member is a new one and the dead
// one's pending entries are claimed by whoever is alive.
std::string DefaultConsumerName() {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  return std::string(host) + "-" + std::to_string(getpid()) + "-" +
         std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
}

int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Status ShortLinkApp::Create(const ShortLinkConfig& config, std::unique_ptr<ShortLinkApp>* out) {
  const bool embedded = config.backend == "embedded";
  if (!embedded) {
    // Before anything is created: a provider told to refuse unsafe settings leaves no trace.
    if (Status s = storage::CheckRedisPersistence(config, "shortlink", kAtStake); !s.ok()) {
      return s;
    }
  }
  std::unique_ptr<ShortLinkApp> app(new ShortLinkApp());
  app->config_ = config;
  app->store_ = std::make_unique<LinkStore>(
      embedded ? SqliteLinkDatabase(config.sqlite_path, config.sqlite_connections)
               : MariaDbLinkDatabase(config.mariadb, config.mariadb_connections));
  app->store_->set_query_observer([] { Metrics().db_queries->Increment(); });
  if (Status s = app->store_->Initialize(); !s.ok()) return s;

  std::string bloom_secret;
  if (Status s = app->store_->SharedSecret("bloom", &bloom_secret); !s.ok()) return s;
  app->hasher_ = std::make_unique<BloomHasher>(bloom_secret);
  app->hot_ = std::make_unique<HotLinkCache>(std::chrono::milliseconds(config.hot_ttl_ms),
                                             config.hot_entries);
  const double fp_rate = config.bloom_false_positive_rate;
  if (embedded) {
    app->cache_ = std::make_unique<LocalLinkCache>(config.local_entries);
    app->filter_ = std::make_unique<LocalCodeFilter>(app->hasher_.get(), fp_rate);
  } else {
    storage::RedisOptions redis;
    redis.host = config.redis_host;
    redis.port = config.redis_port;
    redis.pool_size = static_cast<int>(config.redis_connections);
    redis.timeout_ms = static_cast<int>(config.redis_timeout_ms);
    app->redis_ = std::make_unique<storage::RedisConnectionPool>(redis);
    // Keys are named by the Redis generation: a Redis that came back with older data (a
    // restart from an older file, a restore, a failover to a lagging replica) starts with an
    // empty cache and no filter, and this provider's hot entries go too.
    app->generation_ = std::make_unique<storage::RedisGeneration>(
        std::vector<std::string>{"shortlink:generation"});
    HotLinkCache* hot = app->hot_.get();
    app->generation_->OnChange([hot](const storage::RedisServerIdentity& identity, int64_t) {
      Logger().warn(
          "shortlink: Redis {} is not the server it was, or lost its keys: caches and "
          "the Bloom filter start over",
          identity.ToString());
      hot->Clear();
    });
    app->generation_->Watch(app->redis_.get());
    if (Status s = app->generation_->Check(*app->redis_); !s.ok()) {
      Logger().warn("shortlink: Redis not reachable yet: {}", s.ToString());
    }
    storage::RedisGeneration* generation = app->generation_.get();
    auto current = [generation] { return generation->generation(); };
    app->cache_ = std::make_unique<RedisLinkCache>(app->redis_.get(), current);
    app->filter_ =
        std::make_unique<RedisCodeFilter>(app->redis_.get(), app->hasher_.get(), fp_rate, current);
    // Lookups have connections of their own with a short timeout, watched by a breaker: a
    // slow or silent Redis costs a redirect at most that timeout, and none once it is open.
    storage::RedisOptions read = redis;
    read.timeout_ms = static_cast<int>(config.read_redis_timeout_ms);
    app->read_redis_ = std::make_unique<storage::RedisConnectionPool>(read);
    app->generation_->Watch(app->read_redis_.get());
    app->read_cache_ = std::make_unique<RedisLinkCache>(app->read_redis_.get(), current);
    app->read_filter_ = std::make_unique<RedisCodeFilter>(app->read_redis_.get(),
                                                          app->hasher_.get(), fp_rate, current);
    app->breaker_ = std::make_unique<CircuitBreaker>(
        config.breaker_failures, std::chrono::milliseconds(config.breaker_open_ms));
    app->fallback_cache_ = std::make_unique<LocalLinkCache>(100'000);
    app->fallback_limiter_ = std::make_unique<RateLimiter>(config.fallback_queries_per_second);
  }
  LinkStore* store = app->store_.get();
  const CodeSource codes{.count = [store](uint64_t* count) { return store->CountLinks(count); },
                         .for_each =
                             [store](const std::function<void(const std::string&)>& visit) {
                               return store->ForEachCode(visit);
                             }};
  // Embedded: loaded before serving, so it never answers kUnknown. redis+mariadb: a failure
  // here (Redis down) leaves it unloaded, answering kUnknown, until the job succeeds.
  if (Status s = app->filter_->Maintain(codes); !s.ok()) {
    if (embedded) return s;
    Logger().warn("shortlink: Bloom filter not loaded yet: {}", s.ToString());
  }

  app->resolver_ = std::make_unique<LinkResolver>(
      store, app->cache_.get(), app->filter_.get(), app->hot_.get(),
      ResolverOptions{.cache_ttl_ms = config.cache_ttl_ms, .absent_ttl_ms = config.absent_ttl_ms},
      WallMs, app->read_cache_.get(), app->read_filter_.get(),
      DegradedReads{.breaker = app->breaker_.get(),
                    .local = app->fallback_cache_.get(),
                    .database = app->fallback_limiter_.get(),
                    .stale = std::chrono::milliseconds(config.fallback_stale_ms)});
  if (config.code_generator == "segment") {
    app->codes_ = std::make_unique<SegmentCodeGenerator>(store, config.segment_step);
  } else {
    app->codes_ = std::make_unique<RandomCodeGenerator>(static_cast<int>(config.random_length));
  }
  app->keys_ = std::make_unique<TenantKeys>(store, config.admin_token_sha256);
  if (Status s = app->StartStatistics(); !s.ok()) return s;

  app->domains_ = std::make_unique<DomainStore>(store->pool());
  app->domain_table_ = std::make_unique<DomainTable>(app->domains_.get());
  if (Status s = app->domain_table_->Reload(); !s.ok()) return s;

  ShortLinkDeps deps;
  deps.store = store;
  deps.domains = app->domains_.get();
  deps.domain_table = app->domain_table_.get();
  deps.resolver = app->resolver_.get();
  deps.codes = app->codes_.get();
  deps.keys = app->keys_.get();
  deps.visits = app->recorder_.get();
  deps.stats = app->stats_.get();
  app->not_found_budget_ = std::make_unique<ClientBudget>(config.not_found_per_minute);
  deps.not_found_budget = app->not_found_budget_.get();
  deps.url_policy.max_length = config.max_url_length;
  deps.url_policy.own_hosts = config.own_hosts;
  if (std::string own = HostOf(config.public_base_url); !own.empty()) {
    deps.url_policy.own_hosts.push_back(own);
  }
  deps.public_base_url = config.public_base_url;
  deps.code_attempts = static_cast<int>(config.code_attempts);
  deps.now_ms = WallMs;
  app->service_ = std::make_unique<ShortLinkServiceImpl>(std::move(deps));
  app->services_.push_back(app->service_.get());
  app->api_key_filter_ = std::make_shared<ApiKeyFilter>(app->keys_.get());

  using std::chrono::milliseconds;
  CodeFilter* filter = app->filter_.get();
  LinkResolver* resolver = app->resolver_.get();
  storage::RedisGeneration* generation = app->generation_.get();
  storage::RedisConnectionPool* redis = app->redis_.get();
  app->jobs_.push_back(
      std::make_unique<PeriodicJob>(milliseconds(config.bloom_check_interval_ms), [=] {
        // Connections opened later check the generation themselves; this catches a replica
        // promoted under connections that stayed open.
        if (generation) (void)generation->Check(*redis);
        if (Status s = filter->Maintain(codes); !s.ok()) {
          Logger().warn("shortlink: Bloom filter: {}", s.ToString());
        }
        resolver->RetryUnpublished();
        return false;
      }));
  // Another provider's AddDomain reaches this one's redirects within this.
  DomainTable* domains = app->domain_table_.get();
  app->jobs_.push_back(std::make_unique<PeriodicJob>(milliseconds(5000), [domains] {
    if (Status s = domains->Reload(); !s.ok()) {
      Logger().warn("shortlink: custom domains: {}", s.ToString());
    }
    return false;
  }));
  if (!embedded) {
    app->follower_ = std::make_unique<ChangeFollower>(store, resolver, WallMs);
    ChangeFollower* follower = app->follower_.get();
    app->jobs_.push_back(
        std::make_unique<PeriodicJob>(milliseconds(config.change_poll_ms), [follower] {
          if (Status s = follower->Step(); !s.ok()) {
            Logger().warn("shortlink: change log: {}", s.ToString());
          }
          return false;
        }));
  }
  if (config.cleanup_interval_ms > 0) {
    ShortLinkApp* self = app.get();
    app->jobs_.push_back(
        std::make_unique<PeriodicJob>(milliseconds(config.cleanup_interval_ms), [self] {
          int forgotten = 0;
          if (Status s = self->CleanupOnce(&forgotten); !s.ok()) {
            Logger().warn("shortlink: cleanup: {}", s.ToString());
            return false;
          }
          return forgotten == static_cast<int>(self->config_.cleanup_batch);
        }));
  }
  *out = std::move(app);
  return Status::Ok();
}

Status ShortLinkApp::CleanupOnce(int* forgotten) {
  const int64_t now = WallMs();
  // A batch counted while its link was being deleted may have written counters after the
  // delete erased them; an hour is longer than any batch takes.
  std::vector<std::string> deleted;
  if (Status s = store_->DeletedSince(now - 3'600'000, &deleted); !s.ok()) return s;
  for (const std::string& code : deleted) {
    if (Status s = stats_->Erase(code); !s.ok()) return s;
  }
  if (Status s = store_->ForgetChangesBefore(now - 86'400'000); !s.ok()) return s;
  return stats_->ForgetEventsBefore(now - config_.stats_event_retention_ms,
                                    static_cast<int>(config_.cleanup_batch), forgotten);
}

// Its own connections, so statistics never hold the ones redirects need.
Status ShortLinkApp::StartStatistics() {
  const ShortLinkConfig& config = config_;
  const bool embedded = config.backend == "embedded";
  stats_ = std::make_unique<StatsStore>(embedded ? SqliteLinkDatabase(config.sqlite_path, 2)
                                                 : MariaDbLinkDatabase(config.mariadb, 2));
  if (Status s = stats_->Initialize(); !s.ok()) return s;
  std::string secret;
  if (Status s = store_->SharedSecret("visitor", &secret); !s.ok()) return s;
  const int batch = static_cast<int>(config.stats_batch);
  if (embedded) {
    visit_log_ = std::make_unique<OutboxVisitLog>(stats_.get());
    consumer_ = std::make_unique<OutboxStatsConsumer>(stats_.get(), batch, WallMs);
  } else {
    visit_log_ = std::make_unique<RedisVisitLog>(redis_.get(), std::string(kVisitStream),
                                                 config.stats_stream_max_entries);
    StreamConsumerOptions options{
        .stream = std::string(kVisitStream),
        .consumer = config.stats_consumer.empty() ? DefaultConsumerName() : config.stats_consumer,
        .batch = batch,
        .claim_idle_ms = config.stats_claim_idle_ms,
        .max_deliveries = config.stats_max_deliveries};
    consumer_ = std::make_unique<RedisStatsConsumer>(redis_.get(), stats_.get(), std::move(options),
                                                     WallMs);
  }
  recorder_ = std::make_unique<VisitRecorder>(
      visit_log_.get(),
      RecorderOptions{
          .secret = secret, .max_queued = config.stats_queue, .batch = config.stats_batch});
  StatsConsumer* consumer = consumer_.get();
  jobs_.push_back(std::make_unique<PeriodicJob>(
      std::chrono::milliseconds(config.stats_interval_ms), [consumer] {
        bool more = false;
        if (Status s = consumer->Step(&more); !s.ok()) {
          Logger().warn("shortlink: statistics: {}", s.ToString());
          return false;
        }
        return more;
      }));
  return Status::Ok();
}

void ShortLinkApp::Stop() {
  // Visits still queued reach the log before the consumer stops.
  if (recorder_) recorder_->Stop();
  for (auto& job : jobs_) job->Stop();
  jobs_.clear();
}

}  // namespace ferry::shortlink
