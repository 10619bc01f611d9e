#include "ferry/storage/mariadb_connection.h"

#include <mysql.h>

#include <algorithm>
#include <string>
#include <vector>

namespace ferry::storage {

namespace {

// Server error numbers (mysqld_error.h) and client ones (errmsg.h) that map to a status of
// their own (sql_connection.h).
constexpr unsigned kDuplicateEntry = 1062;
constexpr unsigned kLockWaitTimeout = 1205;
constexpr unsigned kDeadlock = 1213;
constexpr unsigned kFirstClientError = 2000;
// Server errors that say the server cannot serve right now, not that the statement is wrong:
// too many connections, shutting down, the connection killed, network errors on the server's
// side, disconnected for inactivity. Callers retry these like a refused connection.
constexpr unsigned kServerUnavailable[] = {1040, 1053, 1158, 1159, 1160, 1161, 1927, 4031};

struct ResultFree {
  void operator()(MYSQL_RES* result) const { mysql_free_result(result); }
};

// In the order of MariaDbIsolation.
constexpr const char* kIsolationLevels[] = {"REPEATABLE READ", "READ COMMITTED", "SERIALIZABLE"};

// What a new session runs before its first statement.
std::vector<std::string> SessionSetup(const MariaDbOptions& options) {
  std::vector<std::string> sql;
  if (!options.database.empty()) {
    sql.push_back("CREATE DATABASE IF NOT EXISTS `" + options.database + "`");
    sql.push_back("USE `" + options.database + "`");
  }
  sql.push_back(std::string("SET SESSION TRANSACTION ISOLATION LEVEL ") +
                kIsolationLevels[static_cast<int>(options.isolation)]);
  return sql;
}

}  // namespace

Status MariaDbConnection::Open(const MariaDbOptions& options, std::unique_ptr<SqlConnection>* out) {
  if (options.database.find('`') != std::string::npos) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "mariadb: database name " + options.database + " contains a backtick");
  }
  MYSQL* mysql = mysql_init(nullptr);
  if (!mysql) return Status(StatusCode::INTERNAL, "mariadb: mysql_init failed");
  const unsigned timeout_s = std::max<uint32_t>(1, (options.timeout_ms + 999) / 1000);
  mysql_optionsv(mysql, MYSQL_OPT_CONNECT_TIMEOUT, &timeout_s);
  mysql_optionsv(mysql, MYSQL_OPT_READ_TIMEOUT, &timeout_s);
  mysql_optionsv(mysql, MYSQL_OPT_WRITE_TIMEOUT, &timeout_s);
  mysql_optionsv(mysql, MYSQL_SET_CHARSET_NAME, "utf8mb4");
  std::unique_ptr<MariaDbConnection> connection(new MariaDbConnection(mysql));
  if (!mysql_real_connect(mysql, options.host.c_str(), options.user.c_str(),
                          options.password.c_str(), nullptr, options.port, nullptr, 0)) {
    return Status(StatusCode::UNAVAILABLE, "mariadb: cannot connect to " + options.host + ":" +
                                               std::to_string(options.port) + ": " +
                                               mysql_error(mysql));
  }
  for (const std::string& sql : SessionSetup(options)) {
    if (Status s = connection->Run(sql); !s.ok()) return s;
  }
  *out = std::move(connection);
  return Status::Ok();
}

MariaDbConnection::~MariaDbConnection() { mysql_close(mysql_); }

Status MariaDbConnection::Error(std::string_view what) const {
  const unsigned code = mysql_errno(mysql_);
  std::string message = "mariadb: " + std::string(what) + ": " + mysql_error(mysql_);
  if (code == kDuplicateEntry) return Status(StatusCode::ALREADY_EXISTS, std::move(message));
  if (code == kDeadlock || code == kLockWaitTimeout) {
    return Status(StatusCode::ABORTED, std::move(message));
  }
  if (code >= kFirstClientError) return Status(StatusCode::UNAVAILABLE, std::move(message));
  for (unsigned unavailable : kServerUnavailable) {
    if (code == unavailable) return Status(StatusCode::UNAVAILABLE, std::move(message));
  }
  return Status(StatusCode::INTERNAL, std::move(message));
}

Status MariaDbConnection::Bind(std::string_view sql, const std::vector<SqlValue>& params,
                               std::string* out) const {
  size_t next = 0;
  for (char c : sql) {
    if (c != '?') {
      out->push_back(c);
      continue;
    }
    if (next == params.size()) {
      return Status(StatusCode::INTERNAL, "mariadb: more placeholders than parameters");
    }
    const SqlValue& value = params[next++];
    if (const auto* i = std::get_if<int64_t>(&value)) {
      out->append(std::to_string(*i));
    } else if (const auto* t = std::get_if<std::string>(&value)) {
      std::string escaped(t->size() * 2 + 1, '\0');
      const unsigned long n =
          mysql_real_escape_string(mysql_, escaped.data(), t->data(), t->size());
      out->push_back('\'');
      out->append(escaped.data(), n);
      out->push_back('\'');
    } else {
      out->append("NULL");
    }
  }
  if (next != params.size()) {
    return Status(StatusCode::INTERNAL, "mariadb: more parameters than placeholders");
  }
  return Status::Ok();
}

Status MariaDbConnection::Run(const std::string& sql) {
  if (mysql_real_query(mysql_, sql.data(), sql.size()) != 0) return Error("query");
  return Status::Ok();
}

Status MariaDbConnection::Execute(std::string_view sql, const std::vector<SqlValue>& params,
                                  int64_t* affected) {
  std::string text;
  if (Status s = Bind(sql, params, &text); !s.ok()) return s;
  if (Status s = Run(text); !s.ok()) return s;
  if (affected) *affected = static_cast<int64_t>(mysql_affected_rows(mysql_));
  return Status::Ok();
}

Status MariaDbConnection::Query(std::string_view sql, const std::vector<SqlValue>& params,
                                std::vector<SqlRow>* rows) {
  std::string text;
  if (Status s = Bind(sql, params, &text); !s.ok()) return s;
  if (Status s = Run(text); !s.ok()) return s;
  std::unique_ptr<MYSQL_RES, ResultFree> result(mysql_store_result(mysql_));
  if (!result) {
    if (mysql_field_count(mysql_) == 0) return Status::Ok();
    return Error("store result");
  }
  const unsigned columns = mysql_num_fields(result.get());
  while (MYSQL_ROW row = mysql_fetch_row(result.get())) {
    const unsigned long* lengths = mysql_fetch_lengths(result.get());
    SqlRow out;
    for (unsigned c = 0; c < columns; ++c) {
      if (row[c] == nullptr) {
        out.emplace_back(nullptr);
      } else {
        out.emplace_back(std::string(row[c], lengths[c]));
      }
    }
    rows->push_back(std::move(out));
  }
  return Status::Ok();
}

Status MariaDbConnection::ExecuteScript(std::string_view sql) {
  size_t start = 0;
  while (start < sql.size()) {
    size_t end = sql.find(';', start);
    if (end == std::string_view::npos) end = sql.size();
    const std::string_view statement = sql.substr(start, end - start);
    if (statement.find_first_not_of(" \n\t") != std::string_view::npos) {
      if (Status s = Run(std::string(statement)); !s.ok()) return s;
    }
    start = end + 1;
  }
  return Status::Ok();
}

Status MariaDbConnection::Begin() { return Run("START TRANSACTION"); }
Status MariaDbConnection::BeginSnapshot() {
  // The session reads committed rows statement by statement; this one transaction needs a
  // single read view (the setting applies to the next transaction only).
  if (Status s = Run("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ"); !s.ok()) return s;
  return Run("START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY");
}
Status MariaDbConnection::Commit() { return Run("COMMIT"); }
void MariaDbConnection::Rollback() { mysql_real_query(mysql_, "ROLLBACK", 8); }

}  // namespace ferry::storage
