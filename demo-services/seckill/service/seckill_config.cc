#include "service/seckill_config.h"

#include "ferry/framework/secret_file.h"

namespace ferry::seckill {

namespace {

void ReadAdmissionConfig(config::ConfigReader& service, SeckillConfig* out) {
  config::ConfigReader admission = service.Section("admission");
  AdmissionOptions& a = out->admission;
  admission.Bool("enabled", &a.enabled);
  admission.Integer("multiple", 1, 1000, &a.multiple);
  admission.Integer("token_ttl_ms", 1000, 86400000, &a.token_ttl_ms);
  admission.Integer("wait_ttl_ms", 100, 3600000, &a.wait_ttl_ms);
  admission.Integer("max_waiting", 1, 100000000, &a.max_waiting);
  admission.Integer("retry_after_ms", 1, 600000, &a.retry_after_ms);
  config::ReadSecret(admission, "key", "key_file", &a.key);
  if (a.enabled && a.key.size() < 16) {
    admission.Invalid(admission.Has("key_file") ? "key_file" : "key",
                      "admission needs a key of at least 16 bytes (it signs admissions, and "
                      "every provider of the service must share it)");
  }
  a.human_check = ReadHumanCheck(admission);
  admission.RejectUnknownKeys();

  config::ConfigReader blacklist = service.Section("blacklist");
  blacklist.Integer("refresh_ms", 10, 3600000, &out->blacklist_refresh_ms);
  blacklist.RejectUnknownKeys();

  config::ConfigReader backpressure = service.Section("backpressure");
  backpressure.Integer("max_backlog", 0, 1000000000, &out->max_backlog);
  backpressure.Integer("retry_after_ms", 1, 600000, &out->busy_retry_after_ms);
  backpressure.RejectUnknownKeys();
}

}  // namespace

void ReadSeckillConfig(config::ConfigReader& service, SeckillConfig* out) {
  SeckillConfig& c = *out;
  storage::ReadBackendConfig(service, &c);

  config::ConfigReader idgen = service.Section("idgen");
  idgen.Integer("worker_id", 0, 1023, &c.worker_id);
  idgen.String("zookeeper", &c.worker_id_zookeeper);
  if (c.worker_id >= 0 && !c.worker_id_zookeeper.empty()) {
    idgen.Invalid("zookeeper", "set either worker_id or zookeeper, not both");
  }
  if (!c.worker_id_zookeeper.empty() && !c.worker_id_zookeeper.starts_with("zookeeper://")) {
    idgen.Invalid("zookeeper", "expected a zookeeper:// URL, got '" + c.worker_id_zookeeper + "'");
  }
  idgen.RejectUnknownKeys();

  config::ConfigReader writer = service.Section("order_writer");
  writer.Integer("threads", 0, 64, &c.writer_threads);
  writer.Integer("batch", 1, 10000, &c.writer_batch);
  writer.Integer("interval_ms", 1, 60000, &c.writer_interval_ms);
  writer.Integer("claim_idle_ms", 1, 3600000, &c.writer_claim_idle_ms);
  writer.Integer("max_deliveries", 1, 1000, &c.writer_max_deliveries);
  writer.Integer("max_dead_letters", 1, 100000000, &c.writer_max_dead_letters);
  writer.Bool("trim_acknowledged", &c.writer_trim_acknowledged);
  writer.RejectUnknownKeys();

  config::ConfigReader closer = service.Section("order_closer");
  closer.Integer("interval_ms", 1, 60000, &c.closer_interval_ms);
  closer.RejectUnknownKeys();

  config::ConfigReader reconciler = service.Section("reconciler");
  reconciler.Integer("interval_ms", 0, 3600000, &c.reconcile_interval_ms);
  reconciler.Integer("redrive_after_ms", 1, 86400000, &c.redrive_after_ms);
  reconciler.Integer("redrive_batch", 1, 100000, &c.redrive_batch);
  reconciler.Integer("redrive_lease_ms", 1, 86400000, &c.redrive_lease_ms);
  reconciler.Integer("reload_grace_ms", 1, 600000, &c.reload_grace_ms);
  reconciler.RejectUnknownKeys();

  config::ConfigReader payments = service.Section("payments");
  ReadPaymentConfig(payments, &c.payments, &c.payment_channels);

  config::ConfigReader status = service.Section("status");
  status.Integer("refresh_ms", 1, 600000, &c.status_refresh_ms);
  status.Integer("max_activities", 1, 10000000, &c.status_max_activities);
  status.Integer("idle_ms", 1, 86400000, &c.status_idle_ms);
  status.Integer("loads_per_s", 1, 1000000, &c.status_loads_per_s);
  status.String("channel", &c.status_channel);
  if (c.status_channel.empty()) status.Invalid("channel", "must not be empty");
  status.RejectUnknownKeys();

  ReadAdmissionConfig(service, &c);

  service.Integer("sold_out_ttl_ms", 0, 60000, &c.sold_out_ttl_ms);
  service.Integer("result_cache_entries", 1, 100000000, &c.result_cache_entries);
  service.Integer("answer_cache_entries", 1, 100000000, &c.answer_cache_entries);
}

}  // namespace ferry::seckill
