#pragma once

#include <cstdint>
#include <string>

#include "ferry/framework/config_reader.h"
#include "service/merchants.h"

namespace ferry::paysim {

// How notifications are delivered: each delivery is tried until the merchant answers OK or
// ALREADY_EXISTS, waiting initial_backoff_ms, then twice as long each time up to
// max_backoff_ms, at most max_attempts times.
struct DeliveryOptions {
  int64_t max_attempts = 12;
  int64_t initial_backoff_ms = 200;
  int64_t max_backoff_ms = 30000;
  int64_t timeout_ms = 3000;  // of one NotifyPayment call
  int64_t poll_ms = 100;      // how often due retries are looked for
};

// The provider's `service:` section (README, "Configuration").
struct PaysimConfig {
  std::string storage_path = "paysim.db";  // storage.path; ":memory:" for a store in memory
  int64_t storage_connections = 4;         // storage.connections
  // Merchant calls whose sent_at_ms is further from now than this are refused.
  int64_t max_skew_ms = 300000;
  DeliveryOptions delivery;
  Merchants merchants;
};

// Reads `service:`, naming key and line of every mistake through `service`.
void ReadPaysimConfig(config::ConfigReader& service, PaysimConfig* out);

}  // namespace ferry::paysim
