#include "shared_servers_backend.h"

#include "shared_servers.h"

namespace ferry::storage::testing {

using testsupport::SharedServers;

void UseSharedServers(const std::string& database, BackendConfig* config) {
  config->backend = "redis+mariadb";
  config->redis_host = SharedServers::redis().host();
  config->redis_port = SharedServers::redis().port();
  config->redis_connections = 16;
  config->redis_timeout_ms = 5000;
  config->mariadb.host = SharedServers::mariadb().host();
  config->mariadb.port = SharedServers::mariadb().port();
  config->mariadb.user = SharedServers::mariadb().user();
  config->mariadb.password = SharedServers::mariadb().password();
  config->mariadb.database = database;
  config->mariadb.timeout_ms = 20000;
  config->mariadb_connections = 8;
}

}  // namespace ferry::storage::testing
