#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ferry/framework/http.h"
#include "ferry/framework/server.h"

namespace ferry::app {

// One served method over the last minute, as the status page shows it.
struct MethodStatus {
  std::string service;
  std::string method;
  double qps = 0;
  double p50_ms = 0;
  double p99_ms = 0;
  uint64_t calls = 0;   // over the window
  uint64_t errors = 0;  // of those, answered with a status other than OK
};

// One provider of a named client.
struct ProviderStatus {
  std::string address;
  std::string state;  // "in service", "warming up", "ejected", "probing", "draining", "direct"
  uint32_t weight = 0;
  int32_t in_flight = -1;
};

struct ClientStatus {
  std::string name;
  std::string target;  // "host:port" or "service ... via <registry>"
  bool in_use = true;  // false: configured, and not asked for by the app so far
  std::vector<ProviderStatus> providers;
};

// Everything the admin pages show, read when a page is asked for.
struct AdminSources {
  std::string app_name;
  std::function<std::string()> address;  // "host:port" the server listens on
  std::function<bool()> ready;
  std::function<std::vector<MethodStatus>()> methods;
  std::function<std::vector<ClientStatus>()> clients;
  std::function<std::vector<SlowCall>()> slow_calls;
  std::vector<std::string> plugins;
  std::string config_yaml;  // secrets already redacted
  std::function<std::string()> metrics_text;
  // Whether POST /loglevel may change the level: only on an admin listener of its own.
  bool log_level_changeable = false;
};

// GET /health, /ready, /metrics, /status (HTML), /status.json, /loglevel and POST /loglevel,
// all admin routes (HttpRoute::admin); /health and /ready are probes (HttpRoute::probe).
std::vector<HttpRoute> AdminRoutes(AdminSources sources);

}  // namespace ferry::app
