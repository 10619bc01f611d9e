#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "ferry/codec/status.h"
#include "ferry/storage/sql_value.h"

namespace ferry::storage {

// Services write SQL that runs on both databases and branch on the dialect only where they
// differ (DDL, the last inserted id), so their logic is written and tested once.
enum class SqlDialect { kSqlite, kMariaDb };

// One connection, used by one thread at a time (SqlConnectionPool hands them out).
// Statements use `?` placeholders, and no other '?' (the MariaDB adapter binds by replacing
// every one, even in a literal). Errors come back as Status:
//   ALREADY_EXISTS  a UNIQUE or PRIMARY KEY constraint refused the row
//   ABORTED         a deadlock or lock timeout; the transaction was rolled back, retry it
//   UNAVAILABLE     the server is unreachable or the connection broke
//   INTERNAL        anything else, with the database's message
class SqlConnection {
 public:
  virtual ~SqlConnection() = default;
  virtual SqlDialect dialect() const = 0;

  // Runs a statement that returns no rows; `affected` (if given) gets the changed row count.
  virtual Status Execute(std::string_view sql, const std::vector<SqlValue>& params,
                         int64_t* affected = nullptr) = 0;
  // Runs a query and appends its rows.
  virtual Status Query(std::string_view sql, const std::vector<SqlValue>& params,
                       std::vector<SqlRow>* rows) = 0;
  // Runs statements separated by ';' with no parameters (schema creation). No statement may
  // contain a ';' of its own, in a string literal or otherwise.
  virtual Status ExecuteScript(std::string_view sql) = 0;

  // Write transactions. Begin takes the write lock up front where the database allows it
  // (SQLite's BEGIN IMMEDIATE), so a transaction never fails half way on lock upgrade.
  virtual Status Begin() = 0;
  // A read-only transaction whose statements all see one snapshot of the database, whatever
  // commits meanwhile; ended by Commit() or Rollback(). For reports that relate several counts.
  virtual Status BeginSnapshot() = 0;
  virtual Status Commit() = 0;
  virtual void Rollback() = 0;
};

}  // namespace ferry::storage
