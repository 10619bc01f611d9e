#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "ferry/storage/sql_connection.h"

struct st_mysql;

namespace ferry::storage {

// The session's transaction isolation level (BeginSnapshot's transaction always reads one
// snapshot, whatever this says).
enum class MariaDbIsolation { kRepeatableRead, kReadCommitted, kSerializable };

struct MariaDbOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 3306;
  std::string user = "root";
  std::string password;
  std::string database;        // created if missing and selected; empty: none
  uint32_t timeout_ms = 3000;  // connect, read and write
  MariaDbIsolation isolation = MariaDbIsolation::kRepeatableRead;
};

// One connection to a MariaDB server, over libmariadb's text protocol. Parameters are escaped
// by the client library for the connection's character set (utf8mb4), so no value is ever
// spliced into SQL unescaped. A connection never reconnects by itself: once it broke, every
// call is UNAVAILABLE, and the pool replaces it.
class MariaDbConnection final : public SqlConnection {
 public:
  static Status Open(const MariaDbOptions& options, std::unique_ptr<SqlConnection>* out);
  ~MariaDbConnection() override;

  SqlDialect dialect() const override { return SqlDialect::kMariaDb; }
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
  explicit MariaDbConnection(st_mysql* mysql) : mysql_(mysql) {}
  Status Bind(std::string_view sql, const std::vector<SqlValue>& params, std::string* out) const;
  Status Run(const std::string& sql);
  Status Error(std::string_view what) const;

  st_mysql* mysql_;
};

}  // namespace ferry::storage
