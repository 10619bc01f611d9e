#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "ferry/framework/config_reader.h"
#include "ferry/storage/mariadb_connection.h"

namespace ferry::storage {

// The part of a provider's `service:` section that says where its data lives, the same for every
// service on these adapters: `backend` and the `embedded:`, `redis:` and `mariadb:` sections.
// A service's config derives from it and sets its own defaults (file and database names).
struct BackendConfig {
  std::string backend = "embedded";      // embedded | redis+mariadb
  std::string sqlite_path;               // embedded.path
  uint32_t sqlite_connections = 4;       // embedded.connections
  std::string redis_host = "127.0.0.1";  // redis.host
  uint16_t redis_port = 6379;            // redis.port
  uint32_t redis_connections = 8;        // redis.connections
  uint32_t redis_timeout_ms = 1000;      // redis.timeout_ms
  MariaDbOptions mariadb;                // mariadb.{host,port,user,password,database,timeout_ms}
  uint32_t mariadb_connections = 8;      // mariadb.connections
};

// Reads those keys; errors (an unknown backend or key, a value out of range) go to `service`.
// `more_redis_keys`, when set, reads a service's own keys of the `redis:` section before its
// unknown keys are refused.
void ReadBackendConfig(
    config::ConfigReader& service, BackendConfig* out,
    const std::function<void(config::ConfigReader& redis)>& more_redis_keys = {});

}  // namespace ferry::storage
