#include "storage/order_database.h"

#include <utility>

#include "ferry/storage/sqlite_connection.h"

namespace ferry::seckill {

std::unique_ptr<storage::SqlConnectionPool> SqliteOrderDatabase(const std::string& path,
                                                                size_t connections) {
  const storage::SqliteOptions options{.path = path,
                                       .journal_mode = storage::SqliteJournalMode::kWal,
                                       .synchronous = storage::SqliteSynchronous::kFull};
  return std::make_unique<storage::SqlConnectionPool>(
      [options](std::unique_ptr<storage::SqlConnection>* c) {
        return storage::SqliteConnection::Open(options, c);
      },
      connections);
}

std::unique_ptr<storage::SqlConnectionPool> MariaDbOrderDatabase(storage::MariaDbOptions options,
                                                                 size_t connections) {
  options.isolation = storage::MariaDbIsolation::kReadCommitted;
  return std::make_unique<storage::SqlConnectionPool>(
      [options = std::move(options)](std::unique_ptr<storage::SqlConnection>* c) {
        return storage::MariaDbConnection::Open(options, c);
      },
      connections);
}

}  // namespace ferry::seckill
