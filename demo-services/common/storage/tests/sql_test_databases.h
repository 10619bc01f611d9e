#pragma once

// Fresh databases for the SQL tests: an SQLite file in a temporary directory, or a database of
// its own on the MariaDB server the test process shares.

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>

#include "ferry/storage/mariadb_connection.h"
#include "ferry/storage/sql_connection_pool.h"
#include "mariadb_server.h"
#include "temp_dir.h"

namespace ferry::storage::testing {

enum class Backend { kSqlite, kMariaDb };

std::string BackendName(const ::testing::TestParamInfo<Backend>& info);

// The MariaDB server of this test process, started on first use and stopped at exit; null
// (with a gtest failure) when it cannot start.
testsupport::MariaDbServer* SharedMariaDb();

// Options for `server` with a database not used before in this process.
MariaDbOptions FreshMariaDbOptions(const testsupport::MariaDbServer& server);

using testsupport::TempDir;

// Opens connections to one fresh database of `backend`: an SQLite file in `dir`, or a new
// database on SharedMariaDb(). Null (with a gtest failure) when MariaDB cannot start.
SqlConnectionPool::Factory FreshDatabase(Backend backend, const TempDir& dir);

// Wraps `factory`, counting the connections it opened.
class CountingFactory {
 public:
  explicit CountingFactory(SqlConnectionPool::Factory factory) : factory_(std::move(factory)) {}
  SqlConnectionPool::Factory factory();
  int opened() const { return opened_.load(); }

 private:
  SqlConnectionPool::Factory factory_;
  std::atomic<int> opened_{0};
};

}  // namespace ferry::storage::testing
