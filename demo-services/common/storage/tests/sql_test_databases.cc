#include "sql_test_databases.h"

#include <unistd.h>

#include <cstdlib>

#include "ferry/storage/sqlite_connection.h"

namespace ferry::storage::testing {

namespace {

testsupport::MariaDbServer* g_mariadb = nullptr;

void StopSharedMariaDb() {
  delete g_mariadb;
  g_mariadb = nullptr;
}

std::string UniqueSuffix() {
  static std::atomic<int> counter{0};
  return std::to_string(::getpid()) + "_" + std::to_string(++counter);
}

}  // namespace

std::string BackendName(const ::testing::TestParamInfo<Backend>& info) {
  return info.param == Backend::kSqlite ? "sqlite" : "mariadb";
}

testsupport::MariaDbServer* SharedMariaDb() {
  if (g_mariadb == nullptr) {
    g_mariadb = new testsupport::MariaDbServer();
    std::atexit(StopSharedMariaDb);
  }
  const ::testing::AssertionResult started = g_mariadb->Start();
  EXPECT_TRUE(started);
  return started ? g_mariadb : nullptr;
}

MariaDbOptions FreshMariaDbOptions(const testsupport::MariaDbServer& server) {
  return MariaDbOptions{.host = server.host(),
                        .port = server.port(),
                        .user = server.user(),
                        .password = server.password(),
                        .database = "storage_" + UniqueSuffix(),
                        .timeout_ms = 10000};
}

TempDir::TempDir()
    : path_(std::filesystem::path(::testing::TempDir()) / ("ferry-storage-" + UniqueSuffix())) {
  std::filesystem::remove_all(path_);
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
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
