#pragma once

#include <string>

#include "ferry/storage/backend_config.h"

namespace ferry::storage::testing {

// Points `config` at the redis+mariadb backend on the test process's SharedServers (which the
// caller has started), in `database`, with the pools and timeouts the services' tests run with:
// 16 Redis and 8 MariaDB connections, 5 s for a Redis reply and 20 s for a MariaDB one (a
// loaded machine runs several test binaries at once).
void UseSharedServers(const std::string& database, BackendConfig* config);

}  // namespace ferry::storage::testing
