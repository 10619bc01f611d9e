#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "ferry/storage/mariadb_connection.h"
#include "ferry/storage/sql_connection_pool.h"

namespace ferry::seckill {

// The order store's databases, as pools whose connections carry the settings its statements
// rely on. Every SqlOrderStore gets its pool from one of these.

// SQLite, the embedded backend: WAL, so purchases read while one writes, with
// synchronous=FULL: ACCEPTED means the order exists, so each commit waits for the disk and the
// order survives an operating-system crash too, not only the provider being killed.
std::unique_ptr<storage::SqlConnectionPool> SqliteOrderDatabase(const std::string& path,
                                                                size_t connections);

// MariaDB, the redis+mariadb backend, at READ COMMITTED (whatever options.isolation says): the
// order logic relies on row locks and unique keys, not on snapshots, and so takes no gap locks
// that would deadlock writers on the hot stock row.
std::unique_ptr<storage::SqlConnectionPool> MariaDbOrderDatabase(storage::MariaDbOptions options,
                                                                 size_t connections);

}  // namespace ferry::seckill
