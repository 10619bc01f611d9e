#include "service/paysim_config.h"

#include "ferry/framework/secret_file.h"

namespace ferry::paysim {

namespace {

void ReadMerchant(config::ConfigReader& m, const std::string& id, Merchant* out) {
  out->id = id;
  config::ReadSecret(m, "key", "key_file", &out->key);
  if (out->key.size() < 16) {
    m.Invalid(m.Has("key_file") ? "key_file" : "key",
              "the merchant's key must be at least 16 bytes (it signs money movements)");
  }
  m.String("channel", &out->channel);
  if (out->channel.empty() || out->channel.size() > 32) {
    m.Invalid("channel", "expected the merchant's name for this channel, 1..32 characters");
  }
  m.String("notify_address", &out->notify_address);
  m.String("notify_client", &out->notify_client);
  if (out->notify_address.empty() == out->notify_client.empty()) {
    m.Invalid("notify_address",
              "set exactly one of notify_address (host:port of the merchant's NotifyPayment) "
              "and notify_client (a clients: entry)");
  }
  m.RejectUnknownKeys();
}

}  // namespace

void ReadPaysimConfig(config::ConfigReader& service, PaysimConfig* out) {
  config::ConfigReader storage = service.Section("storage");
  storage.String("path", &out->storage_path);
  if (out->storage_path.empty()) storage.Invalid("path", "expected a file, or :memory:");
  storage.Integer("connections", 1, 64, &out->storage_connections);
  storage.RejectUnknownKeys();

  service.Integer("max_skew_ms", 1000, 86400000, &out->max_skew_ms);

  config::ConfigReader delivery = service.Section("delivery");
  DeliveryOptions& d = out->delivery;
  delivery.Integer("max_attempts", 1, 1000, &d.max_attempts);
  delivery.Integer("initial_backoff_ms", 1, 3600000, &d.initial_backoff_ms);
  delivery.Integer("max_backoff_ms", 1, 86400000, &d.max_backoff_ms);
  delivery.Integer("timeout_ms", 1, 600000, &d.timeout_ms);
  delivery.Integer("poll_ms", 1, 60000, &d.poll_ms);
  if (d.max_backoff_ms < d.initial_backoff_ms) {
    delivery.Invalid("max_backoff_ms", "must be at least initial_backoff_ms");
  }
  delivery.RejectUnknownKeys();

  config::ConfigReader merchants = service.Section("merchants");
  for (const std::string& id : service.KeysOf("merchants")) {
    config::ConfigReader m = merchants.Section(id);
    if (id.empty() || id.size() > 64) {
      merchants.Invalid(id, "a merchant id must be 1..64 characters");
      continue;
    }
    ReadMerchant(m, id, &out->merchants[id]);
  }
  if (out->merchants.empty()) service.Invalid("merchants", "expected at least one merchant");
}

}  // namespace ferry::paysim
