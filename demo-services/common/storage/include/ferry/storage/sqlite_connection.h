#pragma once

#include <memory>
#include <string>

#include "ferry/storage/sql_connection.h"

struct sqlite3;

namespace ferry::storage {

class SqliteStatementCache;

// PRAGMA journal_mode. WAL lets the pool's other connections read while one writes; the
// rollback-journal modes make readers wait for the writer.
enum class SqliteJournalMode { kWal, kDelete, kTruncate, kPersist };

// PRAGMA synchronous: how often SQLite waits for the disk. In WAL mode, kNormal keeps every
// committed transaction across the process being killed, and only an operating-system crash or
// power loss can take the last commits; kFull keeps them across those too.
enum class SqliteSynchronous { kOff, kNormal, kFull, kExtra };

struct SqliteOptions {
  std::string path;  // the database file, created if missing
  SqliteJournalMode journal_mode = SqliteJournalMode::kWal;
  SqliteSynchronous synchronous = SqliteSynchronous::kFull;
  bool foreign_keys = true;    // PRAGMA foreign_keys: enforce REFERENCES clauses
  int busy_timeout_ms = 5000;  // how long a writer waits for another's lock before ABORTED
};

// One connection to an SQLite database file; a pool's connections share the file. Every
// connection sets the options' pragmas when it opens, so all of them agree.
class SqliteConnection final : public SqlConnection {
 public:
  static Status Open(const SqliteOptions& options, std::unique_ptr<SqlConnection>* out);
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
  explicit SqliteConnection(sqlite3* db);
  Status SetJournalMode(const SqliteOptions& options);
  Status Run(std::string_view sql, const std::vector<SqlValue>& params, std::vector<SqlRow>* rows);
  Status Error(int rc, std::string_view what) const;

  sqlite3* db_;
  std::unique_ptr<SqliteStatementCache> statements_;  // finalized before db_ closes
};

}  // namespace ferry::storage
