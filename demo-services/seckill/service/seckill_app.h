#pragma once

#include <memory>
#include <span>
#include <vector>

#include "ferry/framework/service.h"
#include "ferry/idgen/snowflake_id_generator.h"
#include "service/order_writer.h"
#include "service/periodic_worker.h"
#include "service/seckill_config.h"
#include "service/seckill_service.h"
#include "service/stock_broadcast.h"

namespace ferry::seckill {

// One seckill provider: its storage backend, order-number generator, handlers and background
// jobs (order writer for the cache backend, order closer, reconciler), started together and
// stopped after the server has drained.
class SeckillApp final {
 public:
  // Connects the backend named in `config` (creating tables and loading scripts) and starts the
  // jobs. `registry_url` (zookeeper://...) leases the worker id when idgen.worker_id is unset.
  static Status Create(const SeckillConfig& config, const std::string& registry_url,
                       std::unique_ptr<SeckillApp>* out);
  ~SeckillApp() { Stop(); }

  std::span<Service* const> services() { return services_; }
  // Stops the background jobs; after the server has drained. Idempotent.
  void Stop();

  SeckillCore& core() { return *core_; }

 private:
  SeckillApp() = default;
  void StartJobs(const SeckillConfig& config);

  std::unique_ptr<OrderStore> store_;
  std::unique_ptr<ReservationCache> cache_;
  std::unique_ptr<StockBroadcast> broadcast_;      // redis+mariadb
  std::unique_ptr<AdmissionLine> admission_line_;  // while admission is on
  std::unique_ptr<idgen::SnowflakeIdGenerator> ids_;
  std::unique_ptr<SeckillCore> core_;
  std::unique_ptr<Payments> payments_;
  std::unique_ptr<SeckillServiceImpl> service_;
  std::vector<Service*> services_;
  std::vector<std::unique_ptr<OrderWriter>> writers_;
  std::vector<std::unique_ptr<PeriodicWorker>> jobs_;
};

}  // namespace ferry::seckill
