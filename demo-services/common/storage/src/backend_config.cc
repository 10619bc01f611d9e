#include "ferry/storage/backend_config.h"

namespace ferry::storage {

void ReadBackendConfig(config::ConfigReader& service, BackendConfig* out) {
  BackendConfig& c = *out;
  service.String("backend", &c.backend);
  if (c.backend != "embedded" && c.backend != "redis+mariadb") {
    service.Invalid("backend", "expected embedded or redis+mariadb, got '" + c.backend + "'");
  }
  config::ConfigReader embedded = service.Section("embedded");
  embedded.String("path", &c.sqlite_path);
  embedded.Integer("connections", 1, 64, &c.sqlite_connections);
  embedded.RejectUnknownKeys();

  config::ConfigReader redis = service.Section("redis");
  redis.String("host", &c.redis_host);
  redis.Integer("port", 1, 65535, &c.redis_port);
  redis.Integer("connections", 1, 256, &c.redis_connections);
  redis.Integer("timeout_ms", 1, 60000, &c.redis_timeout_ms);
  redis.String("persistence_check", &c.redis_persistence_check);
  if (c.redis_persistence_check != "warn" && c.redis_persistence_check != "refuse") {
    redis.Invalid("persistence_check",
                  "expected warn or refuse, got '" + c.redis_persistence_check + "'");
  }
  redis.RejectUnknownKeys();

  config::ConfigReader maria = service.Section("mariadb");
  maria.String("host", &c.mariadb.host);
  maria.Integer("port", 1, 65535, &c.mariadb.port);
  maria.String("user", &c.mariadb.user);
  maria.String("password", &c.mariadb.password);
  maria.String("database", &c.mariadb.database);
  maria.Integer("timeout_ms", 1, 60000, &c.mariadb.timeout_ms);
  maria.Integer("connections", 1, 256, &c.mariadb_connections);
  maria.RejectUnknownKeys();
}

}  // namespace ferry::storage
