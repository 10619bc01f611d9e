#pragma once

#include <memory>
#include <span>
#include <vector>

#include "ferry/framework/service.h"
#include "ferry/storage/redis_connection_pool.h"
#include "service/event_writer.h"
#include "service/like_config.h"
#include "service/like_core.h"
#include "service/like_service.h"
#include "service/outbox_relay.h"
#include "service/periodic_worker.h"
#include "storage/redis_event_stream.h"
#include "storage/redis_like_store.h"
#include "storage/sql_like_store.h"

namespace ferry::like {

// One like provider: its backend, handlers and background jobs (event writers on redis-first,
// the outbox relay on database-first, the outbox trim on embedded, the reconciler), started
// together and stopped after the server has drained.
class LikeApp final {
 public:
  // Connects the backend named in `config` (creating tables, loading scripts), starts the jobs.
  static Status Create(const LikeConfig& config, std::unique_ptr<LikeApp>* out);
  ~LikeApp() { Stop(); }

  std::span<Service* const> services() { return services_; }
  // Stops the background jobs; after the server has drained. Idempotent.
  void Stop();

  LikeCore& core() { return core_; }
  // The bucket streams (redis-first), else null.
  RedisEventStream* stream() { return stream_.get(); }
  // The outbox relay (database-first), else null.
  OutboxRelay* relay() { return relay_.get(); }

 private:
  LikeApp() = default;
  void StartJobs(const LikeConfig& config);

  std::unique_ptr<BucketLayout> layout_;
  std::unique_ptr<LikeDatabase> database_;
  std::unique_ptr<storage::RedisConnectionPool> redis_pool_;
  AppendedStreams appended_;  // before the store and the stream, which use it
  std::unique_ptr<SqlLikeStore> sql_store_;
  std::unique_ptr<RedisLikeStore> redis_store_;
  std::unique_ptr<BlockingTasks> blocking_;  // redis-first: SetLikes that must wait
  std::unique_ptr<LikeStore> store_;         // database-first's pair of the two above
  std::unique_ptr<OutboxRelay> relay_;
  std::unique_ptr<RedisEventStream> stream_;
  LikeCore core_;
  std::unique_ptr<LikeServiceImpl> service_;
  std::vector<Service*> services_;
  std::vector<std::unique_ptr<EventWriter>> writers_;
  std::vector<std::unique_ptr<PeriodicWorker>> jobs_;
};

}  // namespace ferry::like
