#include "ferry/storage/sql_lease.h"

#include <vector>

namespace ferry::storage {

namespace {

constexpr std::string_view kSqlite = R"sql(
CREATE TABLE IF NOT EXISTS ferry_lease (
  name BLOB PRIMARY KEY,
  owner BLOB NOT NULL,
  expires_ms INTEGER NOT NULL,
  state BLOB NOT NULL))sql";

constexpr std::string_view kMariaDb = R"sql(
CREATE TABLE IF NOT EXISTS ferry_lease (
  name VARBINARY(255) NOT NULL PRIMARY KEY,
  owner VARBINARY(255) NOT NULL,
  expires_ms BIGINT NOT NULL,
  state VARBINARY(4096) NOT NULL) ENGINE=InnoDB)sql";

// The lease's row, locked until the transaction ends (MariaDB; SQLite's BEGIN IMMEDIATE
// already holds the database).
Status LockRow(SqlConnection& c, const std::string& name, std::vector<SqlRow>* rows) {
  return c.Query(std::string("SELECT owner, expires_ms, state FROM ferry_lease WHERE name = ?") +
                     (c.dialect() == SqlDialect::kMariaDb ? " FOR UPDATE" : ""),
                 {name}, rows);
}

}  // namespace

int64_t SqlLease::WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string_view SqlLease::Schema(SqlDialect dialect) {
  return dialect == SqlDialect::kSqlite ? kSqlite : kMariaDb;
}

SqlLease::SqlLease(SqlConnectionPool* pool, std::string name, std::string owner,
                   std::chrono::milliseconds ttl, Clock clock)
    : pool_(pool),
      name_(std::move(name)),
      owner_(std::move(owner)),
      ttl_(ttl),
      clock_(std::move(clock)) {}

Status SqlLease::Acquire(bool* held, std::string* state) {
  // The row exists before any transaction locks it: a locking read of a missing row takes a
  // gap lock in MariaDB, and racers inserting into the gap they all lock deadlock.
  {
    std::unique_ptr<SqlConnectionPool::Lease> lease;
    if (Status s = pool_->Acquire(&lease); !s.ok()) return s;
    Status made = lease->Check((*lease)->Execute(
        "INSERT INTO ferry_lease (name, owner, expires_ms, state) VALUES (?, '', 0, '')", {name_}));
    if (!made.ok() && made.code() != StatusCode::ALREADY_EXISTS) return made;
  }
  return pool_->InTransaction([&](SqlConnection& c) {
    *held = false;
    std::vector<SqlRow> rows;
    if (Status s = LockRow(c, name_, &rows); !s.ok()) return s;
    const int64_t now = clock_();
    const int64_t until = now + ttl_.count();
    if (rows.empty()) return Status(StatusCode::ABORTED, "lease row '" + name_ + "' vanished");
    if (AsText(rows[0][0]) != owner_ && AsInt(rows[0][1]) > now) return Status::Ok();
    if (Status s = c.Execute("UPDATE ferry_lease SET owner = ?, expires_ms = ? WHERE name = ?",
                             {owner_, until, name_});
        !s.ok()) {
      return s;
    }
    if (state != nullptr) *state = AsText(rows[0][2]);
    *held = true;
    return Status::Ok();
  });
}

Status SqlLease::Save(const std::string& state) {
  return pool_->InTransaction([&](SqlConnection& c) {
    std::vector<SqlRow> rows;
    if (Status s = LockRow(c, name_, &rows); !s.ok()) return s;
    if (rows.empty() || AsText(rows[0][0]) != owner_ || AsInt(rows[0][1]) <= clock_()) {
      return Status(StatusCode::FAILED_PRECONDITION,
                    "lease '" + name_ + "' is not held by '" + owner_ + "'");
    }
    return c.Execute("UPDATE ferry_lease SET state = ? WHERE name = ?", {state, name_});
  });
}

Status SqlLease::Release() {
  return pool_->InTransaction([&](SqlConnection& c) {
    return c.Execute("UPDATE ferry_lease SET expires_ms = 0 WHERE name = ? AND owner = ?",
                     {name_, owner_});
  });
}

}  // namespace ferry::storage
