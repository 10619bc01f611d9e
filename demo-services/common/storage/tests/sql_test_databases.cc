#include "sql_test_databases.h"

#include <unistd.h>

#include "ferry/storage/sqlite_connection.h"

namespace ferry::storage::testing {

namespace {

std::string UniqueSuffix() {
  static std::atomic<int> counter{0};
  return std::to_string(::getpid()) + "_" + std::to_string(++counter);
}

}  // namespace

std::string BackendName(const ::testing::TestParamInfo<Backend>& info) {
  return info.param == Backend::kSqlite ? "sqlite" : "mariadb";
}

testsupport::MariaDbServer* SharedMariaDb() {
  static testsupport::MariaDbServer server;  // stopped at exit
  const ::testing::AssertionResult started = server.Start();
  EXPECT_TRUE(started);
  return started ? &server : nullptr;
}

MariaDbOptions FreshMariaDbOptions(const testsupport::MariaDbServer& server) {
  return MariaDbOptions{.host = server.host(),
                        .port = server.port(),
                        .user = server.user(),
                        .password = server.password(),
                        .database = "storage_" + UniqueSuffix(),
                        .timeout_ms = 10000};
}

SqlConnectionPool::Factory FreshDatabase(Backend backend, const TempDir& dir) {
  if (backend == Backend::kSqlite) {
    const SqliteOptions options{.path = (dir.path() / ("db_" + UniqueSuffix())).string()};
    return [options](std::unique_ptr<SqlConnection>* out) {
      return SqliteConnection::Open(options, out);
    };
  }
  testsupport::MariaDbServer* server = SharedMariaDb();
  if (server == nullptr) return nullptr;
  const MariaDbOptions options = FreshMariaDbOptions(*server);
  return [options](std::unique_ptr<SqlConnection>* out) {
    return MariaDbConnection::Open(options, out);
  };
}

SqlConnectionPool::Factory CountingFactory::factory() {
  return [this](std::unique_ptr<SqlConnection>* out) {
    Status status = factory_(out);
    if (status.ok()) ++opened_;
    return status;
  };
}

}  // namespace ferry::storage::testing
