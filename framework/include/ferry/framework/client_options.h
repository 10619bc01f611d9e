#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "ferry/framework/filter.h"
#include "ferry/framework/tls_options.h"

namespace ferry {

// Every field maps to a YAML key under `client:` (docs/configuration.md).
struct ClientOptions {
  std::string target;                                  // target: "127.0.0.1:7001"
  std::chrono::milliseconds default_timeout{1000};     // timeout_ms
  std::chrono::milliseconds connect_timeout{1000};     // connect_timeout_ms
  std::string serializer = "protobuf";                 // serializer: protobuf | json
  std::string compression = "none";                    // compression.algorithm: none | zstd
  size_t compress_threshold = 4096;                    // compression.threshold_bytes
  int compression_level = 1;                           // compression.level
  size_t io_threads = 1;                               // io_threads
  std::chrono::milliseconds reconnect_initial{20};     // reconnect.initial_ms
  std::chrono::milliseconds reconnect_max{2000};       // reconnect.max_ms
  std::chrono::milliseconds heartbeat_interval{2000};  // heartbeat.interval_ms
  std::chrono::milliseconds heartbeat_timeout{6000};   // heartbeat.timeout_ms
  size_t max_frame_bytes = 16u << 20;                  // max_frame_bytes
  // Request bytes a connection may hold unwritten (a slow or stalled peer); beyond it calls
  // fail at once, unsent, with UNAVAILABLE instead of growing memory without bound.
  size_t max_outbound_bytes = 64u << 20;  // max_outbound_bytes
  std::vector<FilterSpec> filters;        // filters: run around every call, in order
  ClientTlsOptions tls;                   // tls: plaintext unless the section is present
  // metrics: count calls, by method and status, for /metrics (docs/metrics.md).
  bool metrics = true;
};

}  // namespace ferry
