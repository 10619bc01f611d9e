#include "service/like_app.h"
#include "storage/like_clock.h"

#include <unistd.h>

#include <charconv>
#include <chrono>
#include <map>
#include <set>
#include <thread>

#include "ferry/framework/logging.h"
#include "ferry/storage/redis_persistence.h"
#include "ferry/storage/sql_lease.h"
#include "service/catch_up.h"
#include "service/dead_letters.h"
#include "service/reconciler.h"
#include "service/user_deletion.h"
#include "storage/database_first_store.h"

#include <spdlog/spdlog.h>

namespace ferry::like {

namespace {

// What Redis alone holds, in the words of the persistence check's risks.
std::string_view AtStake(const std::string& write_mode) {
  return write_mode == "redis-first"
             ? "likes and unlikes confirmed but not yet written to the database"
             : "the counts Redis holds (rebuilt from the database; no confirmed change)";
}

// Unique per process: a restarted provider's leases are not taken for its own.
std::string ProcessName() {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  return std::string(host) + "-" + std::to_string(getpid()) + "-" + std::to_string(UnixMs());
}

// The maintenance job's saved state: "<cursor content id>".
int64_t ReadCursor(const std::string& state) {
  int64_t cursor = 0;
  std::from_chars(state.data(), state.data() + state.size(), cursor);
  return cursor;
}

constexpr auto kMaintenanceEvery = std::chrono::milliseconds(1000);
constexpr uint32_t kTrimRows = 10000;

}  // namespace

Status LikeApp::ConnectRedis() {
  storage::RedisOptions redis;
  redis.host = config_.redis_host;
  redis.port = config_.redis_port;
  redis.pool_size = static_cast<int>(config_.redis_connections);
  redis.timeout_ms = static_cast<int>(config_.redis_timeout_ms);
  redis_pool_ = std::make_unique<storage::RedisConnectionPool>(redis);
  std::vector<std::string> keys;
  for (uint32_t p = 0; p < config_.partitions; ++p) {
    keys.push_back(PartitionKeys::For(p).generation);
  }
  // Every connection checks the server before anything is sent over it: a Redis restored
  // from an older copy, or a promoted replica, is a new generation before it serves a call.
  generation_ = std::make_unique<storage::RedisGeneration>(std::move(keys));
  generation_->OnChange([](const storage::RedisServerIdentity& identity, int64_t generation) {
    Logger().warn(
        "like: Redis is server {} now (restarted, restored or failed over): generation {}; "
        "buckets load from the database again on their next use",
        identity.ToString(), generation);
  });
  generation_->Watch(redis_pool_.get());
  redis_store_ = std::make_unique<RedisLikeStore>(
      redis_pool_.get(), database_.get(), layout_.get(), generation_.get(),
      RedisLikeOptions{.partitions = config_.partitions,
                       .request_ttl_ms = config_.request_ttl_ms,
                       .max_backlog = config_.writer_max_backlog,
                       .empty_cache_ms = config_.empty_cache_ms,
                       .changes_through_streams = config_.write_mode == "redis-first"});
  if (Status s = redis_store_->Connect(); !s.ok()) return s;
  log_ = std::make_unique<RedisPartitionLog>(redis_pool_.get(), &redis_store_->scripts(),
                                             config_.partitions);
  core_.redis = redis_store_.get();
  core_.log = log_.get();
  return Status::Ok();
}

Status LikeApp::Create(const LikeConfig& config, std::unique_ptr<LikeApp>* out) {
  const bool redis_first = config.backend == "redis+mariadb" && config.write_mode == "redis-first";
  if (config.backend == "redis+mariadb") {
    // Before anything is created: a provider told to refuse unsafe settings leaves no trace.
    if (Status s = storage::CheckRedisPersistence(config, "like", AtStake(config.write_mode),
                                                  redis_first && config.request_ttl_ms > 0
                                                      ? "the request ids retries are answered by"
                                                      : "");
        !s.ok()) {
      return s;
    }
  }
  std::unique_ptr<LikeApp> app(new LikeApp());
  app->config_ = config;
  const bool embedded = config.backend == "embedded";
  app->layout_ = std::make_unique<BucketLayout>(config.default_buckets, config.hot);
  app->database_ = std::make_unique<LikeDatabase>(
      embedded ? SqliteLikePool(config.sqlite_path, config.sqlite_connections)
               : MariaDbLikePool(config.mariadb, config.mariadb_connections),
      embedded ? 1 : config.partitions);
  if (Status s = app->database_->Initialize(); !s.ok()) return s;
  std::map<int64_t, uint32_t> raised;
  if (Status s = app->database_->Layouts(&raised); !s.ok()) return s;
  for (const auto& [content, buckets] : raised) app->layout_->Raise(content, buckets);
  LikeCore& core = app->core_;
  core.database = app->database_.get();
  core.layout = app->layout_.get();
  core.process = ProcessName();
  core.horizon_ms = config.tombstone_database_keep_ms;
  if (!embedded) {
    if (Status s = app->ConnectRedis(); !s.ok()) return s;
  }
  if (redis_first) {
    core.store = app->redis_store_.get();
    core.async_store = app->redis_store_.get();
    app->blocking_ = std::make_unique<BlockingTasks>(4);
    core.blocking = app->blocking_.get();
  } else {
    app->sql_store_ = std::make_unique<SqlLikeStore>(app->database_.get(), app->layout_.get(),
                                                     config.request_ttl_ms > 0);
    core.store = app->sql_store_.get();
    if (!embedded) {
      app->store_ =
          std::make_unique<DatabaseFirstStore>(app->sql_store_.get(), app->redis_store_.get());
      core.store = app->store_.get();
      core.outbox_relayed = true;
    }
    app->relay_ = std::make_unique<OutboxRelay>(app->database_.get(), app->redis_store_.get(),
                                                app->log_.get(), core.process + "-relay",
                                                config.writer_batch, config.writer_lease_ms);
  }
  core.counts = std::make_unique<CountCache>(
      std::chrono::milliseconds(config.count_cache_ms), config.count_cache_entries,
      [store = core.store](std::span<const int64_t> ids, std::vector<ContentCounts>* counts) {
        return store->Counts(ids, counts);
      });
  if (config.raise_above_writes_per_s > 0 && !core.outbox_relayed) {
    core.hot = std::make_unique<HotDetector>(config.raise_above_writes_per_s);
  }
  app->service_ = std::make_unique<LikeServiceImpl>(&app->core_);
  app->services_.push_back(app->service_.get());
  app->StartJobs();
  *out = std::move(app);
  return Status::Ok();
}

EventWriterOptions LikeApp::WriterOptions(const std::string& holder) const {
  return {.holder = holder,
          .batch = static_cast<int>(config_.writer_batch),
          .lease_ms = config_.writer_lease_ms,
          .max_failures = config_.writer_max_failures,
          .tombstone_keep_ms = config_.tombstone_redis_keep_ms,
          .horizon_ms = config_.tombstone_database_keep_ms};
}

Status LikeApp::DrainEvents(const std::string& holder) {
  if (log_ == nullptr || core_.outbox_relayed) return Status::Ok();
  EventWriter writer(log_.get(), redis_pool_.get(), database_.get(), generation_.get(),
                     WriterOptions(holder));
  if (Status s = writer.Drain(); !s.ok()) return s;
  // Partitions other writers hold are theirs to apply.
  return CatchUp(core_, std::chrono::milliseconds(30000));
}

Status LikeApp::DrainOutbox(const std::string& holder) {
  if (relay_ == nullptr) return Status::Ok();
  OutboxRelay relay(database_.get(), redis_store_.get(), log_.get(), holder, config_.writer_batch,
                    config_.writer_lease_ms);
  if (Status s = relay.Drain(); !s.ok()) return s;
  // Partitions other relays hold are theirs to relay.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (true) {
    int64_t left = 0;
    if (Status s = database_->CountOutbox(&left); !s.ok()) return s;
    if (left == 0) return Status::Ok();
    if (std::chrono::steady_clock::now() > deadline) {
      return Status(StatusCode::UNAVAILABLE,
                    std::to_string(left) + " outbox rows still wait for their relays");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

Status LikeApp::RunMaintenance() {
  std::lock_guard lock(maintenance_mu_);
  // One provider at a time: the job's cost does not grow with the number of providers.
  storage::SqlLease lease(database_->pool(), "like-maintenance", core_.process,
                          std::max(std::chrono::milliseconds(30000),
                                   3 * std::chrono::milliseconds(config_.reconcile_interval_ms)));
  bool held = false;
  std::string state;
  if (Status s = lease.Acquire(&held, &state); !s.ok() || !held) return s;
  const int64_t now = UnixMs();
  Status first_failure;
  auto note = [&](const char* what, const Status& s) {
    if (s.ok()) return;
    Logger().warn("like maintenance: {}: {}", what, s.ToString());
    if (first_failure.ok()) first_failure = s;
  };
  if (config_.reconcile_interval_ms > 0 &&
      now - last_maintenance_ms_ >= config_.reconcile_interval_ms) {
    const int64_t since =
        last_maintenance_ms_ == 0 ? now - config_.reconcile_interval_ms : last_maintenance_ms_;
    last_maintenance_ms_ = now;
    // The contents changed since the last run, and a slice of all of them in turn: the work
    // follows activity, and everything is looked at eventually.
    std::vector<int64_t> recent;
    note("recent contents",
         database_->RecentlyChanged(since - 1000, config_.reconcile_contents, &recent));
    std::vector<int64_t> slice;
    const int64_t cursor = ReadCursor(state);
    note("contents", database_->CountedContents(cursor, config_.reconcile_contents, &slice));
    std::set<int64_t> contents(recent.begin(), recent.end());
    contents.insert(slice.begin(), slice.end());
    for (int64_t content : contents) {
      ReconcileResponse report;
      Status s = Reconcile(core_, content, config_.reconcile_repair, &report);
      note("reconcile", s);
      for (const std::string& v : report.violations()) {
        Logger().error("like reconciler: content {}: {}{}", content, v,
                       report.repaired() ? " (repaired)" : "");
      }
    }
    const int64_t horizon_us = (now - config_.tombstone_database_keep_ms) * 1000;
    for (int64_t content : slice) {
      int64_t dropped = 0;
      note("tombstones", database_->TrimTombstones(content, horizon_us, &dropped));
    }
    const int64_t next = slice.size() < config_.reconcile_contents ? 0 : slice.back();
    note("saving the cursor", lease.Save(std::to_string(next)));
    RedriveDeadLettersResponse redriven;
    note("re-driving dead letters", Redrive(core_, 100, /*never_redriven=*/true, &redriven));
  }
  int64_t deleted = 0;
  if (config_.feed_retention_ms > 0) {
    note("feed", database_->TrimFeed(now - config_.feed_retention_ms, kTrimRows, &deleted));
  }
  if (sql_store_ && config_.request_ttl_ms > 0) {
    note("request ids", database_->TrimRequests(now - config_.request_ttl_ms, kTrimRows, &deleted));
  }
  note("user deletions", RunUserDeletions(core_, 10));
  return first_failure;
}

void LikeApp::StartJobs() {
  using std::chrono::milliseconds;
  if (log_ && !core_.outbox_relayed) {
    for (uint32_t i = 0; i < config_.writer_threads; ++i) {
      writers_.push_back(std::make_unique<EventWriter>(
          log_.get(), redis_pool_.get(), database_.get(), generation_.get(),
          WriterOptions(core_.process + "-w" + std::to_string(i))));
      jobs_.push_back(
          std::make_unique<PeriodicWorker>(milliseconds(config_.writer_interval_ms),
                                           [w = writers_.back().get()] { return w->Step(); }));
    }
  }
  if (relay_ && config_.writer_threads > 0) {
    jobs_.push_back(std::make_unique<PeriodicWorker>(
        milliseconds(config_.writer_interval_ms), [relay = relay_.get()] {
          size_t relayed = 0;
          if (Status s = relay->Step(&relayed); !s.ok()) {
            Logger().warn("like outbox: relay: {}", s.ToString());
            return false;
          }
          return relayed > 0;
        }));
  }
  if (generation_) {
    // A replica promoted in place keeps its connections: its identity is read again.
    jobs_.push_back(
        std::make_unique<PeriodicWorker>(milliseconds(config_.generation_check_ms), [this] {
          if (Status s = generation_->Check(*redis_pool_); !s.ok()) {
            Logger().warn("like: checking Redis's generation: {}", s.ToString());
          }
          return false;
        }));
  }
  if (core_.hot) {
    jobs_.push_back(std::make_unique<PeriodicWorker>(
        milliseconds(50), [core = &core_, max = config_.max_buckets] {
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
  jobs_.push_back(std::make_unique<PeriodicWorker>(kMaintenanceEvery, [this] {
    // Each step's failure is logged as it happens; the next round tries them all again.
    static_cast<void>(RunMaintenance());
    return false;
  }));
  for (auto& job : jobs_) job->Start();
}

void LikeApp::Stop() {
  for (auto& job : jobs_) job->Stop();
  jobs_.clear();
  for (auto& writer : writers_) writer->Stop();
  writers_.clear();
  if (relay_) relay_->Stop();
  if (blocking_) blocking_->Stop();
}

}  // namespace ferry::like
