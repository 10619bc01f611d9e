#include "service/seckill_app.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>

#include "ferry/framework/logging.h"
#include "ferry/idgen/zookeeper_worker_id_lease.h"
#include "ferry/storage/redis_persistence.h"
#include "service/order_closer.h"
#include "service/reconciler.h"
#include "service/seckill_metrics.h"
#include "storage/memory_admission_line.h"
#include "storage/order_database.h"
#include "storage/redis_admission_line.h"
#include "storage/redis_reservation_cache.h"
#include "storage/sql_order_store.h"

#include <spdlog/spdlog.h>

namespace ferry::seckill {

namespace {

// What an accepted reservation loses with Redis's data until the order writers write it.
constexpr std::string_view kAtStake = "reservations not yet written as orders";

int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Status OpenStore(const SeckillConfig& config, std::unique_ptr<OrderStore>* out) {
  std::unique_ptr<storage::SqlConnectionPool> pool =
      config.backend == "embedded"
          ? SqliteOrderDatabase(config.sqlite_path, config.sqlite_connections)
          : MariaDbOrderDatabase(config.mariadb, config.mariadb_connections);
  auto store = std::make_unique<SqlOrderStore>(std::move(pool));
  if (Status s = store->Initialize(); !s.ok()) return s;
  *out = std::move(store);
  return Status::Ok();
}

Status CreateIdGenerator(const SeckillConfig& config, const std::string& registry_url,
                         std::unique_ptr<idgen::SnowflakeIdGenerator>* out) {
  if (config.worker_id >= 0) {
    return idgen::SnowflakeIdGenerator::Create(static_cast<uint32_t>(config.worker_id), {}, out);
  }
  const std::string& url =
      !config.worker_id_zookeeper.empty() ? config.worker_id_zookeeper : registry_url;
  if (!url.starts_with("zookeeper://")) {
    if (config.backend == "embedded") return idgen::SnowflakeIdGenerator::Create(0, {}, out);
    return Status(StatusCode::INVALID_ARGUMENT,
                  "service.idgen: backend " + config.backend +
                      " is shared by every provider on its database, so each needs a worker id "
                      "of its own: use a zookeeper:// registry (or idgen.zookeeper) to lease "
                      "one, or set idgen.worker_id for a provider that is alone");
  }
  idgen::ZooKeeperWorkerIdLeaseOptions options;
  options.url = url;
  options.namespace_name = "seckill-orders";
  // A third of it less a tenth (7 s) is how long order numbers go on being issued while
  // ZooKeeper is unreachable (a restart, a failover); a crashed provider's id is free after it.
  options.session_timeout = std::chrono::seconds(30);
  // The C client's first handshake with a server that is still starting can take a good part
  // of the session timeout; start-up waits that long rather than fail.
  options.connect_timeout = std::chrono::seconds(30);
  std::shared_ptr<idgen::ZooKeeperWorkerIdLease> lease;
  if (Status s = idgen::ZooKeeperWorkerIdLease::Acquire(options, &lease); !s.ok()) return s;
  Logger().info("seckill: order numbers use worker id lease {}", lease->znode_path());
  return idgen::SnowflakeIdGenerator::Create(std::move(lease), {}, out);
}

// Unique per provider (host, process, start time, and a count for providers started together in
// one process): the order writers' consumer names and the re-drive lease holder.
std::string ProviderName() {
  static std::atomic<uint64_t> started{0};
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  return std::string(host) + "-" + std::to_string(getpid()) + "-" + std::to_string(WallMs()) + "-" +
         std::to_string(started++);
}

}  // namespace

Status SeckillApp::Create(const SeckillConfig& config, const std::string& registry_url,
                          std::unique_ptr<SeckillApp>* out) {
  std::unique_ptr<SeckillApp> app(new SeckillApp());
  if (Status s = CreateIdGenerator(config, registry_url, &app->ids_); !s.ok()) return s;
  storage::RedisOptions redis;
  redis.host = config.redis_host;
  redis.port = config.redis_port;
  redis.pool_size = static_cast<int>(config.redis_connections);
  redis.timeout_ms = static_cast<int>(config.redis_timeout_ms);
  if (config.backend == "redis+mariadb") {
    // Before anything is created: a provider told to refuse unsafe settings leaves no trace.
    if (Status s = storage::CheckRedisPersistence(config, "seckill", kAtStake); !s.ok()) return s;
  }
  if (Status s = OpenStore(config, &app->store_); !s.ok()) return s;
  if (config.backend == "redis+mariadb") {
    if (Status s = ConnectRedisReservationCache(redis, &app->cache_); !s.ok()) return s;
    app->broadcast_ = std::make_unique<StockBroadcast>(redis, config.status_channel);
  }
  if (config.admission.enabled) {
    if (config.backend == "redis+mariadb") {
      app->admission_line_ = std::make_unique<RedisAdmissionLine>(redis);
    } else {
      app->admission_line_ = std::make_unique<MemoryAdmissionLine>();
    }
  }

  SeckillDeps deps;
  deps.store = app->store_.get();
  deps.cache = app->cache_.get();
  deps.next_order_no = [ids = app->ids_.get()](int64_t* id) { return ids->NextId(id); };
  deps.now_ms = WallMs;
  deps.sold_out_ttl_ms = config.sold_out_ttl_ms;
  deps.answer_cache_entries = static_cast<size_t>(config.answer_cache_entries);
  deps.redrive_after_ms = config.redrive_after_ms;
  deps.redrive_batch = config.redrive_batch;
  deps.redrive_lease_ms = config.redrive_lease_ms;
  deps.provider_id = ProviderName();
  deps.reload_grace_ms = config.reload_grace_ms;
  deps.result_cache_entries = static_cast<size_t>(config.result_cache_entries);
  deps.status = {.refresh_ms = config.status_refresh_ms,
                 .max_entries = static_cast<size_t>(config.status_max_activities),
                 .idle_ms = config.status_idle_ms,
                 .loads_per_s = config.status_loads_per_s};
  if (StockBroadcast* broadcast = app->broadcast_.get()) {
    deps.broadcast = [broadcast](const StockSignal& signal) { broadcast->Publish(signal); };
  }
  deps.currency = config.payments.currency;
  deps.admission = config.admission;
  deps.admission_line = app->admission_line_.get();
  deps.max_backlog = config.max_backlog;
  deps.busy_retry_after_ms = config.busy_retry_after_ms;
  std::vector<std::unique_ptr<PaymentChannel>> channels;
  for (const PaymentChannelFactory& factory : config.payment_channels) {
    std::unique_ptr<PaymentChannel> channel;
    if (Status s = factory.make(&channel); !s.ok()) return s;
    channels.push_back(std::move(channel));
  }
  app->core_ = std::make_unique<SeckillCore>(std::move(deps));
  SeckillCore* core = app->core_.get();
  // Before serving: a listed buyer is refused from the first call.
  if (Status s = core->blacklist.Refresh(); !s.ok()) return s;
  app->payments_ = std::make_unique<Payments>(
      app->store_.get(), WallMs, config.payments, std::move(channels),
      [core](const OrderRecord& order, int64_t epoch) {
        // Best effort now; the order closer retries whatever is still pending.
        (void)core->PublishRelease({order.order_no, order.activity_id, order.sku_id, epoch, epoch});
      });
  core->deps.payments = app->payments_.get();
  if (app->broadcast_) {
    // After a (re)subscription every status is read again: signals sent while this provider
    // was not subscribed are gone.
    app->broadcast_->Start([core](const StockSignal& signal) { core->ApplyStockSignal(signal); },
                           [core] { core->status.ExpireAll(); });
  }
  app->service_ = std::make_unique<SeckillServiceImpl>(app->core_.get());
  app->services_.push_back(app->service_.get());
  app->StartJobs(config);
  *out = std::move(app);
  return Status::Ok();
}

void SeckillApp::StartJobs(const SeckillConfig& config) {
  using std::chrono::milliseconds;
  SeckillCore* core = core_.get();
  if (cache_) {
    // Several writers, each its own consumer in the group: the stream hands each event to one
    // of them, and their transactions overlap on the database (group commit) instead of paying
    // one commit's round trips after another. Names are unique per process, so a restarted
    // provider's stale deliveries are claimed, not mistaken for its own.
    const std::string& process = core->deps.provider_id;
    for (uint32_t i = 0; i < config.writer_threads; ++i) {
      OrderWriterOptions options;
      options.consumer = process + "-" + std::to_string(i);
      options.batch = static_cast<int>(config.writer_batch);
      options.claim_idle_ms = config.writer_claim_idle_ms;
      options.max_deliveries = config.writer_max_deliveries;
      options.max_dead_letters = config.writer_max_dead_letters;
      options.trim_acknowledged = config.writer_trim_acknowledged;
      writers_.push_back(std::make_unique<OrderWriter>(core, options));
      jobs_.push_back(std::make_unique<PeriodicWorker>(
          milliseconds(config.writer_interval_ms),
          [w = writers_.back().get()](const std::stop_token&) { return w->Step(); }));
    }
  }
  jobs_.push_back(std::make_unique<PeriodicWorker>(
      milliseconds(config.closer_interval_ms),
      [core](const std::stop_token&) { return CloseExpiredOrders(*core); }));
  jobs_.push_back(std::make_unique<PeriodicWorker>(
      milliseconds(1000), [core](const std::stop_token&) { return SettlePayments(*core); }));
  jobs_.push_back(std::make_unique<PeriodicWorker>(
      milliseconds(config.blacklist_refresh_ms), [core](const std::stop_token&) {
        if (Status s = core->blacklist.Refresh(); !s.ok()) {
          Logger().warn("seckill: the blacklist stays as last read: {}", s.ToString());
        }
        return false;
      }));
  if (config.reconcile_interval_ms > 0) {
    jobs_.push_back(std::make_unique<PeriodicWorker>(
        milliseconds(config.reconcile_interval_ms), [core](const std::stop_token& stop) {
          std::vector<ActivityRecord> open;
          if (!core->deps.store->ListOpenActivities(core->deps.now_ms(), &open).ok()) return false;
          int64_t backlog = 0;
          int64_t difference = 0;
          for (const ActivityRecord& activity : open) {
            // A pass takes a while with many open activities; a stopping provider leaves it
            // unfinished (and the backlog gauge as it was).
            if (stop.stop_requested()) return false;
            ReconcileResponse report;
            Status s = ReconcileActivity(*core, activity.activity_id, &report, /*reload=*/true);
            if (!s.ok()) {
              Logger().warn("reconciler: activity {}: {}", activity.activity_id, s.ToString());
              continue;
            }
            backlog += report.queue_backlog();
            difference += std::abs(report.cache_difference());
            Metrics().reconcile_violations->Increment(
                static_cast<uint64_t>(report.violations_size()));
            for (const std::string& v : report.violations()) {
              Logger().error("reconciler: activity {}: {}", activity.activity_id, v);
            }
          }
          Metrics().stream_backlog->Set(static_cast<double>(backlog));
          Metrics().cache_difference->Set(static_cast<double>(difference));
          return false;
        }));
    // A generation found stale or a Redis found changed is reloaded now, not at the interval.
    core->SetReconcileNow([worker = jobs_.back().get()] { worker->Wake(); });
    if (cache_) cache_->OnServerChange([core] { core->RequestReconcile(); });
  }
  for (auto& job : jobs_) job->Start();
}

void SeckillApp::Stop() {
  if (core_) core_->SetReconcileNow(nullptr);
  for (auto& job : jobs_) job->Stop();
  jobs_.clear();
  if (broadcast_) broadcast_->Stop();
}

}  // namespace ferry::seckill
