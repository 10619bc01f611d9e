#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "ferry/codec/status.h"

namespace ferry::storage {

// A bound parameter or a column value. Integers and text are all the schema uses.
using SqlValue = std::variant<std::nullptr_t, int64_t, std::string>;
using SqlRow = std::vector<SqlValue>;

// The SQL the order store writes is portable between SQLite and MariaDB except for the schema,
// so each database needs only this small adapter; the order logic is written and tested once.
enum class SqlDialect { kSqlite, kMariaDb };

// One connection, used by one thread at a time (SqlConnectionPool hands them out).
// Statements use `?` placeholders. Errors come back as Status:
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
  // Runs statements separated by ';' with no parameters (schema creation).
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

inline int64_t AsInt(const SqlValue& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) return *i;
  if (const auto* s = std::get_if<std::string>(&v)) return std::stoll(*s);
  return 0;
}
inline std::string AsText(const SqlValue& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  return {};
}

}  // namespace ferry::storage
