#pragma once

#include <memory>
#include <string>

#include "ferry/storage/sql_connection.h"

struct sqlite3;

namespace ferry::storage {

// The embedded backend's database: one SQLite file, shared by the pool's connections.
// WAL journal with synchronous=NORMAL: a committed transaction survives the process being
// killed (it is in the WAL); only an operating-system crash could lose the last commits.
class SqliteConnection final : public SqlConnection {
 public:
  // Opens (creating if needed) the database file at `path`.
  static Status Open(const std::string& path, std::unique_ptr<SqlConnection>* out);
  ~SqliteConnection() override;

  SqlDialect dialect() const override { return SqlDialect::kSqlite; }
  Status Execute(std::string_view sql, const std::vector<SqlValue>& params,
                 int64_t* affected) override;
  Status Query(std::string_view sql, const std::vector<SqlValue>& params,
               std::vector<SqlRow>* rows) override;
  Status ExecuteScript(std::string_view sql) override;
  Status Begin() override;
  Status BeginSnapshot() override;
  Status Commit() override;
  void Rollback() override;

 private:
  explicit SqliteConnection(sqlite3* db) : db_(db) {}
  Status Run(std::string_view sql, const std::vector<SqlValue>& params, std::vector<SqlRow>* rows);
  Status Error(int rc, std::string_view what) const;

  sqlite3* db_;
};

}  // namespace ferry::storage
