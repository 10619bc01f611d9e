#include "service/like_app.h"

#include <unistd.h>

#include <chrono>
#include <map>

#include "ferry/framework/logging.h"
#include "ferry/storage/redis_persistence.h"
#include "service/reconciler.h"
#include "storage/database_first_store.h"

#include <spdlog/spdlog.h>

namespace ferry::like {

namespace {

int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// What Redis alone holds, in the words of the persistence check's risks.
std::string_view AtStake(const std::string& write_mode) {
  return write_mode == "redis-first"
             ? "likes and unlikes confirmed but not yet written to the database"
             : "the counts Redis holds (rebuilt from the database; no confirmed change)";
}

// Every content with count rows: reported, and repaired when `repair`.
Status ReconcileAll(LikeCore& core, bool repair) {
  std::vector<int64_t> contents;
  if (Status s = core.database->CountedContents(&contents); !s.ok()) return s;
  for (int64_t content : contents) {
    ReconcileResponse report;
    if (Status s = Reconcile(core, content, false, &report); !s.ok()) return s;
    // Only what disagrees is rewritten: a repair reloads every bucket of the content.
    if (repair && report.violations_size() > 0) {
      if (Status s = Reconcile(core, content, true, &report); !s.ok()) return s;
    }
    for (const std::string& v : report.violations()) {
      Logger().error("like reconciler: content {}: {}{}", content, v,
                     report.repaired() ? " (repaired from the database)" : "");
    }
  }
  return Status::Ok();
}

}  // namespace

Status LikeApp::Create(const LikeConfig& config, std::unique_ptr<LikeApp>* out) {
  if (config.backend == "redis+mariadb") {
    // Before anything is created: a provider told to refuse unsafe settings leaves no trace.
    if (Status s = storage::CheckRedisPersistence(config, "like", AtStake(config.write_mode));
        !s.ok()) {
      return s;
    }
  }
  std::unique_ptr<LikeApp> app(new LikeApp());
  app->layout_ = std::make_unique<BucketLayout>(config.default_buckets, config.hot);
  app->database_ = std::make_unique<LikeDatabase>(
      config.backend == "embedded" ? SqliteLikePool(config.sqlite_path, config.sqlite_connections)
                                   : MariaDbLikePool(config.mariadb, config.mariadb_connections));
  if (Status s = app->database_->Initialize(); !s.ok()) return s;
  std::map<int64_t, uint32_t> raised;
  if (Status s = app->database_->Layouts(&raised); !s.ok()) return s;
  for (const auto& [content, buckets] : raised) app->layout_->Raise(content, buckets);
  LikeCore& core = app->core_;
  core.database = app->database_.get();
  core.layout = app->layout_.get();
  if (config.backend == "redis+mariadb") {
    storage::RedisOptions redis;
    redis.host = config.redis_host;
    redis.port = config.redis_port;
    redis.pool_size = static_cast<int>(config.redis_connections);
    redis.timeout_ms = static_cast<int>(config.redis_timeout_ms);
    app->redis_pool_ = std::make_unique<storage::RedisConnectionPool>(redis);
    app->redis_store_ = std::make_unique<RedisLikeStore>(app->redis_pool_.get(),
                                                         app->database_.get(), app->layout_.get(),
                                                         config.request_ttl_ms, &app->appended_);
    if (Status s = app->redis_store_->Connect(); !s.ok()) return s;
    core.redis = app->redis_store_.get();
  }
  if (core.redis != nullptr && config.write_mode == "redis-first") {
    core.store = app->redis_store_.get();
    core.async_store = app->redis_store_.get();
    app->blocking_ = std::make_unique<BlockingTasks>(4);
    core.blocking = app->blocking_.get();
    app->stream_ = std::make_unique<RedisEventStream>(app->redis_pool_.get(), &app->appended_);
  } else {
    app->sql_store_ = std::make_unique<SqlLikeStore>(app->database_.get(), app->layout_.get(),
                                                     config.request_ttl_ms > 0);
    core.store = app->sql_store_.get();
    if (core.redis != nullptr) {
      app->store_ =
          std::make_unique<DatabaseFirstStore>(app->sql_store_.get(), app->redis_store_.get());
      core.outbox_relayed = true;
      app->relay_ = std::make_unique<OutboxRelay>(app->database_.get(), app->redis_store_.get(),
                                                  config.writer_batch);
    }
  }
  core.counts = std::make_unique<CountCache>(
      std::chrono::milliseconds(config.count_cache_ms), 1 << 20,
      [store = core.store](int64_t content, std::vector<int64_t>* buckets) {
        return store->BucketCounts(content, buckets);
      });
  if (config.raise_above_writes_per_s > 0 && !core.outbox_relayed) {
    core.hot = std::make_unique<HotDetector>(config.raise_above_writes_per_s);
  }
  app->service_ = std::make_unique<LikeServiceImpl>(&app->core_);
  app->services_.push_back(app->service_.get());
  app->StartJobs(config);
  *out = std::move(app);
  return Status::Ok();
}

void LikeApp::StartJobs(const LikeConfig& config) {
  using std::chrono::milliseconds;
  if (stream_) {
    char host[256] = {};
    gethostname(host, sizeof(host) - 1);
    // Unique per process: a restarted provider's old deliveries are reclaimed, not taken for
    // its own.
    const std::string process =
        std::string(host) + "-" + std::to_string(getpid()) + "-" + std::to_string(WallMs());
    for (uint32_t i = 0; i < config.writer_threads; ++i) {
      EventWriterOptions options;
      options.consumer = process + "-" + std::to_string(i);
      options.batch = static_cast<int>(config.writer_batch);
      options.claim_idle_ms = config.writer_claim_idle_ms;
      options.sweep_ms = config.writer_sweep_ms;
      options.max_deliveries = config.writer_max_deliveries;
      writers_.push_back(
          std::make_unique<EventWriter>(stream_.get(), database_.get(), std::move(options)));
      jobs_.push_back(
          std::make_unique<PeriodicWorker>(milliseconds(config.writer_interval_ms),
                                           [w = writers_.back().get()] { return w->Step(); }));
    }
  }
  if (relay_ && config.writer_threads > 0) {
    jobs_.push_back(std::make_unique<PeriodicWorker>(
        milliseconds(config.writer_interval_ms), [relay = relay_.get()] {
          size_t relayed = 0;
          if (Status s = relay->Step(&relayed); !s.ok()) {
            Logger().warn("like outbox: relay: {}", s.ToString());
            return false;
          }
          return relayed > 0;
        }));
  }
  // Rows kept for `keep_ms`, deleted by a job at least once a minute.
  auto trim = [this](const char* what, int64_t keep_ms,
                     Status (LikeDatabase::*trim_before)(int64_t, int64_t*)) {
    jobs_.push_back(std::make_unique<PeriodicWorker>(
        milliseconds(std::min<int64_t>(keep_ms, 60000)),
        [db = database_.get(), what, keep_ms, trim_before] {
          int64_t deleted = 0;
          if (Status s = (db->*trim_before)(WallMs() - keep_ms, &deleted); !s.ok()) {
            Logger().warn("like {}: trim: {}", what, s.ToString());
          }
          return false;
        }));
  };
  // Embedded: the outbox is the durable change feed for downstream readers.
  if (!relay_) trim("outbox", config.outbox_retention_ms, &LikeDatabase::TrimOutbox);
  if (sql_store_ && config.request_ttl_ms > 0) {
    trim("requests", config.request_ttl_ms, &LikeDatabase::TrimRequests);
  }
  if (core_.hot) {
    jobs_.push_back(std::make_unique<PeriodicWorker>(
        milliseconds(50), [core = &core_, max = config.max_buckets] {
          int64_t content = 0;
          if (!core->hot->Take(&content)) return false;
          const uint32_t buckets = core->layout->BucketsOf(content);
          if (buckets * 2 > max) return true;
          if (Status s = core->store->RaiseBuckets(content, buckets * 2); !s.ok()) {
            Logger().warn("like: raising content {} to {} buckets: {}", content, buckets * 2,
                          s.ToString());
          } else {
            Logger().info("like: content {} is hot: raised to {} buckets", content, buckets * 2);
          }
          return true;
        }));
  }
  if (config.reconcile_interval_ms > 0) {
    jobs_.push_back(
        std::make_unique<PeriodicWorker>(milliseconds(config.reconcile_interval_ms),
                                         [core = &core_, repair = config.reconcile_repair] {
                                           if (Status s = ReconcileAll(*core, repair); !s.ok()) {
                                             Logger().warn("like reconciler: {}", s.ToString());
                                           }
                                           return false;
                                         }));
  }
  for (auto& job : jobs_) job->Start();
}

void LikeApp::Stop() {
  for (auto& job : jobs_) job->Stop();
  jobs_.clear();
  if (blocking_) blocking_->Stop();
}

}  // namespace ferry::like
