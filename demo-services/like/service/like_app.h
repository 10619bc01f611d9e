#pragma once

#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "ferry/framework/service.h"
#include "ferry/storage/redis_connection_pool.h"
#include "ferry/storage/redis_generation.h"
#include "service/event_writer.h"
#include "service/like_config.h"
#include "service/like_core.h"
#include "service/like_service.h"
#include "service/outbox_relay.h"
#include "service/periodic_worker.h"
#include "storage/redis_like_store.h"
#include "storage/redis_partition_log.h"
#include "storage/sql_like_store.h"

namespace ferry::like {

// One like provider: its backend, handlers and background jobs (event writers on redis-first,
// the outbox relay on database-first and embedded, the maintenance job under its lease), started
// together and stopped after the server has drained.
class LikeApp final {
 public:
  // Connects the backend named in `config` (creating tables, loading scripts), starts the jobs.
  static Status Create(const LikeConfig& config, std::unique_ptr<LikeApp>* out);
  ~LikeApp() { Stop(); }

  std::span<Service* const> services() { return services_; }
  // Stops the background jobs and gives their leases back; after the server has drained.
  // Idempotent.
  void Stop();

  LikeCore& core() { return core_; }
  const LikeConfig& config() const { return config_; }
  // Redis-first: a writer of this provider's own that takes every free partition and applies
  // what their streams hold, then waits for the partitions other writers hold (tests, a
  // draining provider). OK once the record has every change the streams held.
  Status DrainEvents(const std::string& holder);
  // Database-first and embedded: relays the whole outbox.
  Status DrainOutbox(const std::string& holder);
  storage::RedisGeneration* generation() { return generation_.get(); }
  // One run of the maintenance job (reconciling, re-driving, trimming, deletions), if this
  // provider holds its lease (tests run it at once).
  Status RunMaintenance();

 private:
  LikeApp() = default;
  Status ConnectRedis();
  void StartJobs();
  EventWriterOptions WriterOptions(const std::string& holder) const;

  LikeConfig config_;
  std::unique_ptr<BucketLayout> layout_;
  std::unique_ptr<LikeDatabase> database_;
  std::unique_ptr<storage::RedisConnectionPool> redis_pool_;
  std::unique_ptr<storage::RedisGeneration> generation_;
  std::unique_ptr<RedisLikeStore> redis_store_;
  std::unique_ptr<RedisPartitionLog> log_;
  std::unique_ptr<SqlLikeStore> sql_store_;
  std::unique_ptr<BlockingTasks> blocking_;  // redis-first: SetLikes that must wait
  std::unique_ptr<LikeStore> store_;         // database-first's pair of the two above
  std::unique_ptr<OutboxRelay> relay_;
  LikeCore core_;
  std::unique_ptr<LikeServiceImpl> service_;
  std::vector<Service*> services_;
  std::vector<std::unique_ptr<EventWriter>> writers_;
  std::vector<std::unique_ptr<PeriodicWorker>> jobs_;
  std::mutex maintenance_mu_;        // one run at a time in the process (its job, a test)
  int64_t last_maintenance_ms_ = 0;  // guarded by maintenance_mu_
};

}  // namespace ferry::like
