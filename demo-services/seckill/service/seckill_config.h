#pragma once

#include <cstdint>
#include <string>

#include "ferry/codec/status.h"
#include "ferry/framework/config_reader.h"
#include "ferry/storage/backend_config.h"
#include "service/admission.h"
#include "service/payment_config.h"

namespace ferry::seckill {

// The provider's own `service:` section (README, "seckill-server configuration").
struct SeckillConfig : storage::BackendConfig {
  SeckillConfig() {
    sqlite_path = "seckill.db";
    mariadb.database = "ferry_seckill";
    // Accepted reservations live only in Redis until written, yet warn stays the default that
    // existing deployments started with (README, "Known limits").
    redis_persistence_check = "warn";
  }

  // idgen.worker_id: a fixed worker id, for a provider that is alone on its database. -1: the
  // id is leased from ZooKeeper (idgen.zookeeper, else a zookeeper:// registry.url); with
  // neither, only the embedded backend starts (with 0): providers sharing a database must never
  // share a worker id, and a fixed id per replica is how they would.
  int64_t worker_id = -1;
  // idgen.zookeeper: where to lease the worker id, for a process not registered (an order
  // consumer); empty: the registry's URL.
  std::string worker_id_zookeeper;

  // order_writer.threads; 0: this provider only reserves, and another seckill-server on the
  // same Redis and MariaDB writes the orders.
  uint32_t writer_threads = 4;
  uint32_t writer_batch = 128;               // order_writer.batch
  int64_t writer_interval_ms = 5;            // order_writer.interval_ms (when idle)
  int64_t writer_claim_idle_ms = 5000;       // order_writer.claim_idle_ms
  int64_t writer_max_deliveries = 5;         // order_writer.max_deliveries
  int64_t writer_max_dead_letters = 100000;  // order_writer.max_dead_letters
  bool writer_trim_acknowledged = true;      // order_writer.trim_acknowledged
  int64_t closer_interval_ms = 200;          // order_closer.interval_ms
  int64_t reconcile_interval_ms = 5000;      // reconciler.interval_ms; 0: only on request
  int64_t redrive_after_ms = 10000;          // reconciler.redrive_after_ms
  int64_t redrive_batch = 100;               // reconciler.redrive_batch
  int64_t redrive_lease_ms = 30000;          // reconciler.redrive_lease_ms
  int64_t sold_out_ttl_ms = 500;             // sold_out_ttl_ms
  int64_t answer_cache_entries = 1 << 20;    // answer_cache_entries
  int64_t reload_grace_ms = 5000;            // reconciler.reload_grace_ms
  int64_t result_cache_entries = 1 << 18;    // result_cache_entries

  // GetActivity's statuses (status.*): how old one may get while polled, how many are kept, when
  // an unpolled one goes, how many first reads a second, and the broadcast's channel.
  int64_t status_refresh_ms = 200;                       // status.refresh_ms
  int64_t status_max_activities = 10000;                 // status.max_activities
  int64_t status_idle_ms = 60000;                        // status.idle_ms
  int64_t status_loads_per_s = 1000;                     // status.loads_per_s
  std::string status_channel = "seckill:stock_signals";  // status.channel

  AdmissionOptions admission;           // admission.*
  int64_t blacklist_refresh_ms = 1000;  // blacklist.refresh_ms
  // backpressure.max_backlog: Purchase answers BUSY while the activity's order queue holds more
  // than this many events not yet written (redis+mariadb; 0: never).
  int64_t max_backlog = 0;
  int64_t busy_retry_after_ms = 1000;  // backpressure.retry_after_ms

  PaymentOptions payments;                              // payments.*
  std::vector<PaymentChannelFactory> payment_channels;  // payments.channels
};

// Reads the provider's `service:` section (absent keys keep their defaults), reporting mistakes
// through `service`, e.g. "seckill.yaml:7: service.redis.port: expected an integer from 1 to
// 65535, got 'x'" (App::ReadServiceConfig).
void ReadSeckillConfig(config::ConfigReader& service, SeckillConfig* out);

}  // namespace ferry::seckill
