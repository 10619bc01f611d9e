#include "ferry/storage/sql_placeholders.h"
#include "storage/like_database.h"
#include "storage/like_partition_rows.h"

// LikeDatabase's bookkeeping tables: raised bucket counts, dead letters, trims, deletions.

namespace ferry::like {

using storage::AsInt;
using storage::AsText;
using storage::SqlConnection;
using storage::SqlDialect;
using storage::SqlRow;
using storage::SqlValue;

namespace {

Status ExecuteOnce(storage::SqlConnectionPool& pool, std::string_view sql,
                   const std::vector<SqlValue>& params, int64_t* affected = nullptr) {
  std::unique_ptr<storage::SqlConnectionPool::Lease> lease;
  if (Status s = pool.Acquire(&lease); !s.ok()) return s;
  return lease->Check((*lease)->Execute(sql, params, affected));
}

Status QueryOnce(storage::SqlConnectionPool& pool, std::string_view sql,
                 const std::vector<SqlValue>& params, std::vector<SqlRow>* rows) {
  std::unique_ptr<storage::SqlConnectionPool::Lease> lease;
  if (Status s = pool.Acquire(&lease); !s.ok()) return s;
  return lease->Check((*lease)->Query(sql, params, rows));
}

// A bounded DELETE of `table`'s rows matching `where`: SQLite deletes with LIMIT only when
// built for it, so there it goes by the rows' keys.
std::string BoundedDelete(SqlDialect dialect, std::string_view table, std::string_view where) {
  if (dialect == SqlDialect::kSqlite) {
    return "DELETE FROM " + std::string(table) + " WHERE rowid IN (SELECT rowid FROM " +
           std::string(table) + " WHERE " + std::string(where) + " LIMIT ?)";
  }
  return "DELETE FROM " + std::string(table) + " WHERE " + std::string(where) + " LIMIT ?";
}

}  // namespace

Status LikeDatabase::Layouts(std::map<int64_t, uint32_t>* out) {
  std::vector<SqlRow> rows;
  if (Status s = QueryOnce(*pool_, "SELECT content_id, buckets FROM like_layout", {}, &rows);
      !s.ok()) {
    return s;
  }
  out->clear();
  for (const SqlRow& row : rows) (*out)[AsInt(row[0])] = static_cast<uint32_t>(AsInt(row[1]));
  return Status::Ok();
}

Status LikeDatabase::Layout(int64_t content_id, uint32_t* buckets) {
  std::vector<SqlRow> rows;
  if (Status s = QueryOnce(*pool_, "SELECT buckets FROM like_layout WHERE content_id = ?",
                           {content_id}, &rows);
      !s.ok()) {
    return s;
  }
  *buckets = rows.empty() ? 0 : static_cast<uint32_t>(AsInt(rows[0][0]));
  return Status::Ok();
}

Status LikeDatabase::LayoutsOf(std::span<const int64_t> content_ids,
                               std::map<int64_t, uint32_t>* out) {
  out->clear();
  if (content_ids.empty()) return Status::Ok();
  std::vector<SqlRow> rows;
  if (Status s = QueryOnce(*pool_,
                           "SELECT content_id, buckets FROM like_layout WHERE content_id IN " +
                               storage::SqlPlaceholders(1, content_ids.size()),
                           std::vector<SqlValue>(content_ids.begin(), content_ids.end()), &rows);
      !s.ok()) {
    return s;
  }
  for (const SqlRow& row : rows) (*out)[AsInt(row[0])] = static_cast<uint32_t>(AsInt(row[1]));
  return Status::Ok();
}

Status LikeDatabase::RecordLayout(int64_t content_id, uint32_t buckets) {
  return pool_->InTransaction([&](SqlConnection& c) {
    std::vector<SqlRow> rows;
    if (Status s =
            c.Query("SELECT buckets FROM like_layout WHERE content_id = ?", {content_id}, &rows);
        !s.ok()) {
      return s;
    }
    if (rows.empty()) {
      return c.Execute("INSERT INTO like_layout (content_id, buckets) VALUES (?, ?)",
                       {content_id, int64_t{buckets}});
    }
    if (AsInt(rows[0][0]) >= buckets) return Status::Ok();
    return c.Execute("UPDATE like_layout SET buckets = ? WHERE content_id = ?",
                     {int64_t{buckets}, content_id});
  });
}

Status LikeDatabase::CountDeadLetters(int64_t* out) {
  std::vector<SqlRow> rows;
  Status s = QueryOnce(*pool_, "SELECT COUNT(*) FROM like_dead_letter", {}, &rows);
  *out = s.ok() && !rows.empty() ? AsInt(rows[0][0]) : 0;
  return s;
}

Status LikeDatabase::ListDeadLetters(uint32_t limit, bool never_redriven,
                                     std::vector<DeadLetter>* out) {
  std::vector<SqlRow> rows;
  if (Status s = QueryOnce(
          *pool_,
          std::string("SELECT stream, entry_id, content_id, user_id, liked, version, bucket, "
                      "reason, redrives FROM like_dead_letter") +
              (never_redriven ? " WHERE redrives = 0" : "") + " ORDER BY created_ms LIMIT ?",
          {int64_t{limit}}, &rows);
      !s.ok()) {
    return s;
  }
  out->clear();
  for (const SqlRow& row : rows) {
    out->push_back({.event = {.content_id = AsInt(row[2]),
                              .user_id = AsText(row[3]),
                              .liked = AsInt(row[4]) != 0,
                              .version = AsInt(row[5]),
                              .bucket = static_cast<uint32_t>(AsInt(row[6])),
                              .stream = AsText(row[0]),
                              .entry_id = AsText(row[1]),
                              .redrives = AsInt(row[8])},
                    .reason = AsText(row[7])});
  }
  return Status::Ok();
}

Status LikeDatabase::DeleteDeadLetter(const LikeEvent& event) {
  return ExecuteOnce(*pool_, "DELETE FROM like_dead_letter WHERE stream = ? AND entry_id = ?",
                     {event.stream, event.entry_id});
}

Status LikeDatabase::TrimRequests(int64_t before_ms, uint32_t limit, int64_t* deleted) {
  std::unique_ptr<storage::SqlConnectionPool::Lease> lease;
  if (Status s = pool_->Acquire(&lease); !s.ok()) return s;
  return lease->Check(
      (*lease)->Execute(BoundedDelete((*lease)->dialect(), "like_request", "created_ms < ?"),
                        {before_ms, int64_t{limit}}, deleted));
}

Status LikeDatabase::TrimTombstones(int64_t content_id, int64_t before_version, int64_t* deleted) {
  return ExecuteOnce(*pool_,
                     "DELETE FROM like_state WHERE content_id = ? AND liked = 0 AND version < ?",
                     {content_id, before_version}, deleted);
}

Status LikeDatabase::RequestUserDeletion(const std::string& user_id, int64_t now_ms,
                                         UserDeletion* out) {
  return pool_->InTransaction([&](SqlConnection& c) {
    std::vector<SqlRow> rows;
    if (Status s = c.Query("SELECT requested_ms, done_ms, unliked FROM like_user_deletion WHERE "
                           "user_id = ?",
                           {user_id}, &rows);
        !s.ok()) {
      return s;
    }
    if (rows.empty()) {
      *out = {.user_id = user_id, .requested_ms = now_ms};
      return c.Execute(
          "INSERT INTO like_user_deletion (user_id, requested_ms, done_ms, unliked) "
          "VALUES (?, ?, 0, 0)",
          {user_id, now_ms});
    }
    *out = {.user_id = user_id,
            .requested_ms = AsInt(rows[0][0]),
            .done_ms = AsInt(rows[0][1]),
            .unliked = AsInt(rows[0][2])};
    return Status::Ok();
  });
}

Status LikeDatabase::PendingUserDeletions(uint32_t limit, std::vector<UserDeletion>* out) {
  std::vector<SqlRow> rows;
  if (Status s = QueryOnce(*pool_,
                           "SELECT user_id, requested_ms, unliked FROM like_user_deletion WHERE "
                           "done_ms = 0 ORDER BY requested_ms LIMIT ?",
                           {int64_t{limit}}, &rows);
      !s.ok()) {
    return s;
  }
  out->clear();
  for (const SqlRow& row : rows) {
    out->push_back(
        {.user_id = AsText(row[0]), .requested_ms = AsInt(row[1]), .unliked = AsInt(row[2])});
  }
  return Status::Ok();
}

Status LikeDatabase::UpdateUserDeletion(const std::string& user_id, int64_t unliked,
                                        int64_t done_ms) {
  return pool_->InTransaction([&](SqlConnection& c) {
    if (done_ms > 0) {
      if (Status s = c.Execute("DELETE FROM like_dead_letter WHERE user_id = ?", {user_id});
          !s.ok()) {
        return s;
      }
    }
    return c.Execute("UPDATE like_user_deletion SET done_ms = ?, unliked = ? WHERE user_id = ?",
                     {done_ms, unliked, user_id});
  });
}

}  // namespace ferry::like
