#pragma once

#include <cstdint>
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
  // redis.persistence_check: warn | refuse, what start-up does when Redis's settings can lose
  // what the service keeps only there (redis_persistence.h). A service sets its own default.
  std::string redis_persistence_check = "warn";
  MariaDbOptions mariadb;            // mariadb.{host,port,user,password,database,timeout_ms}
  uint32_t mariadb_connections = 8;  // mariadb.connections
};

// Reads those keys; errors (an unknown backend or key, a value out of range) go to `service`.
void ReadBackendConfig(config::ConfigReader& service, BackendConfig* out);

}  // namespace ferry::storage
