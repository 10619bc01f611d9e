#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "ferry/framework/filter.h"

namespace ferry {

// YAML `server.http`: HTTP/1.1 on the server's port, beside the binary protocol (docs/http.md).
struct HttpOptions {
  bool enabled = true;                              // enabled
  size_t max_header_bytes = 16u << 10;              // max_header_bytes
  size_t max_body_bytes = 4u << 20;                 // max_body_bytes
  std::chrono::milliseconds request_timeout{10000};  // request_timeout_ms: first byte to last
  // admin_listen: "host:port" of a listener for the admin pages (metrics, health, status) alone;
  // empty: they are served on the server's port.
  std::string admin_listen;
};

// Every field maps to a YAML key under `server:` (docs/configuration.md).
struct ServerOptions {
  std::string listen = "127.0.0.1:0";  // listen: "host:port"; port 0 picks one
  size_t io_threads = 1;               // io_threads
  size_t worker_threads = 4;           // business_pool.threads
  size_t queue_capacity = 1024;        // business_pool.queue_capacity
  // grace_period_ms: once draining, how long calls in flight may take before connections close.
  std::chrono::milliseconds grace_period{5000};
  // drain_delay_ms: how long an App that is stopping keeps serving after it unregistered, while
  // consumers learn from the registry that it is leaving (a ZooKeeper watch takes milliseconds;
  // this covers a loaded consumer and a slow session).
  std::chrono::milliseconds drain_delay{1000};
  std::chrono::milliseconds idle_timeout{60000};  // idle_timeout_ms: close silent connections
  std::string compression = "none";               // compression.algorithm: none | zstd
  size_t compress_threshold = 4096;               // compression.threshold_bytes
  int compression_level = 1;                      // compression.level
  size_t max_frame_bytes = 16u << 20;             // max_frame_bytes
  std::vector<FilterSpec> filters;                // filters: run around every call, in order
  HttpOptions http;                               // http
  // slow_call_ms: calls that take longer are logged with their trace and kept for the status
  // page; 0: none is.
  std::chrono::milliseconds slow_call{1000};
  // metrics: count calls, by method and status, for /metrics (docs/metrics.md).
  bool metrics = true;
};

}  // namespace ferry
