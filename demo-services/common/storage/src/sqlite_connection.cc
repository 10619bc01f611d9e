#include "ferry/storage/sqlite_connection.h"

#include <sqlite3.h>

#include <chrono>

#include "sqlite_statement_cache.h"

namespace ferry::storage {

namespace {

constexpr size_t kCachedStatements = 64;

// Leaves a cached statement ready for its next use, whatever way its run ended: reset, and no
// binding left pointing at the caller's strings (bound SQLITE_STATIC).
struct StatementReset {
  void operator()(sqlite3_stmt* stmt) const {
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
  }
};

// Pragma values, in the order of their enums.
constexpr const char* kJournalModes[] = {"WAL", "DELETE", "TRUNCATE", "PERSIST"};
constexpr const char* kSynchronousLevels[] = {"OFF", "NORMAL", "FULL", "EXTRA"};

std::string PragmasSql(const SqliteOptions& options) {
  return std::string("PRAGMA synchronous=") +
         kSynchronousLevels[static_cast<int>(options.synchronous)] +
         "; PRAGMA foreign_keys=" + (options.foreign_keys ? "ON" : "OFF");
}

}  // namespace

Status SqliteConnection::Open(const SqliteOptions& options, std::unique_ptr<SqlConnection>* out) {
  const std::string& path = options.path;
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(
      path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return Status(StatusCode::UNAVAILABLE, "sqlite: cannot open " + path + ": " + message);
  }
  sqlite3_busy_timeout(db, options.busy_timeout_ms);
  std::unique_ptr<SqliteConnection> connection(new SqliteConnection(db));
  if (Status s = connection->SetJournalMode(options); !s.ok()) return s;
  if (Status s = connection->ExecuteScript(PragmasSql(options)); !s.ok()) return s;
  *out = std::move(connection);
  return Status::Ok();
}

SqliteConnection::SqliteConnection(sqlite3* db)
    : db_(db), statements_(std::make_unique<SqliteStatementCache>(kCachedStatements)) {}

SqliteConnection::~SqliteConnection() {
  statements_.reset();
  sqlite3_close(db_);
}

// Connections opening a new file at once may each hold a read lock and want the write lock to
// switch it to WAL. SQLite then refuses all but one at once rather than call their busy
// handlers (waiting could deadlock), so the switch is retried within the busy timeout.
Status SqliteConnection::SetJournalMode(const SqliteOptions& options) {
  const std::string sql =
      std::string("PRAGMA journal_mode=") + kJournalModes[static_cast<int>(options.journal_mode)];
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(options.busy_timeout_ms);
  for (;;) {
    Status s = ExecuteScript(sql);
    if (s.code() != StatusCode::ABORTED || std::chrono::steady_clock::now() >= deadline) return s;
    sqlite3_sleep(1);
  }
}

Status SqliteConnection::Error(int rc, std::string_view what) const {
  std::string message = "sqlite: " + std::string(what) + ": " + sqlite3_errmsg(db_);
  switch (rc & 0xff) {
    case SQLITE_CONSTRAINT: {
      // Only a unique key refusing the row is ALREADY_EXISTS, as on MariaDB; a NOT NULL, CHECK
      // or foreign key violation is a wrong statement, not a row someone else wrote first.
      const int extended = sqlite3_extended_errcode(db_);
      const bool unique =
          extended == SQLITE_CONSTRAINT_UNIQUE || extended == SQLITE_CONSTRAINT_PRIMARYKEY;
      return Status(unique ? StatusCode::ALREADY_EXISTS : StatusCode::INTERNAL, std::move(message));
    }
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Status(StatusCode::ABORTED, std::move(message));
    case SQLITE_IOERR:
    case SQLITE_CANTOPEN:
    case SQLITE_FULL:
      return Status(StatusCode::UNAVAILABLE, std::move(message));
    default:
      return Status(StatusCode::INTERNAL, std::move(message));
  }
}

Status SqliteConnection::Run(std::string_view sql, const std::vector<SqlValue>& params,
                             std::vector<SqlRow>* rows) {
  sqlite3_stmt* raw = nullptr;
  int rc = statements_->Prepare(db_, sql, &raw);
  if (rc != SQLITE_OK) return Error(rc, "prepare");
  std::unique_ptr<sqlite3_stmt, StatementReset> stmt(raw);
  for (size_t i = 0; i < params.size(); ++i) {
    const int index = static_cast<int>(i) + 1;
    if (const auto* v = std::get_if<int64_t>(&params[i])) {
      rc = sqlite3_bind_int64(raw, index, *v);
    } else if (const auto* t = std::get_if<std::string>(&params[i])) {
      rc = sqlite3_bind_text(raw, index, t->data(), static_cast<int>(t->size()), SQLITE_STATIC);
    } else {
      rc = sqlite3_bind_null(raw, index);
    }
    if (rc != SQLITE_OK) return Error(rc, "bind");
  }
  while ((rc = sqlite3_step(raw)) == SQLITE_ROW) {
    if (!rows) continue;
    SqlRow row;
    const int columns = sqlite3_column_count(raw);
    for (int c = 0; c < columns; ++c) {
      switch (sqlite3_column_type(raw, c)) {
        case SQLITE_INTEGER:
          row.emplace_back(static_cast<int64_t>(sqlite3_column_int64(raw, c)));
          break;
        case SQLITE_NULL:
          row.emplace_back(nullptr);
          break;
        case SQLITE_BLOB:
          row.emplace_back(std::string(static_cast<const char*>(sqlite3_column_blob(raw, c)),
                                       static_cast<size_t>(sqlite3_column_bytes(raw, c))));
          break;
        default:
          row.emplace_back(std::string(reinterpret_cast<const char*>(sqlite3_column_text(raw, c)),
                                       static_cast<size_t>(sqlite3_column_bytes(raw, c))));
      }
    }
    rows->push_back(std::move(row));
  }
  if (rc != SQLITE_DONE) return Error(rc, "step");
  return Status::Ok();
}

Status SqliteConnection::Execute(std::string_view sql, const std::vector<SqlValue>& params,
                                 int64_t* affected) {
  Status s = Run(sql, params, nullptr);
  if (s.ok() && affected) *affected = sqlite3_changes64(db_);
  return s;
}

Status SqliteConnection::Query(std::string_view sql, const std::vector<SqlValue>& params,
                               std::vector<SqlRow>* rows) {
  return Run(sql, params, rows);
}

Status SqliteConnection::ExecuteScript(std::string_view sql) {
  const std::string text(sql);
  const int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, nullptr);
  return rc == SQLITE_OK ? Status::Ok() : Error(rc, "script");
}

Status SqliteConnection::Begin() { return Execute("BEGIN IMMEDIATE", {}, nullptr); }
// A deferred transaction reads one snapshot from its first read to its end, without taking the
// write lock.
Status SqliteConnection::BeginSnapshot() { return Execute("BEGIN DEFERRED", {}, nullptr); }
Status SqliteConnection::Commit() { return Execute("COMMIT", {}, nullptr); }
void SqliteConnection::Rollback() { sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr); }

}  // namespace ferry::storage
