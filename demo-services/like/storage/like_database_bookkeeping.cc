#include "storage/like_database.h"

// LikeDatabase's bookkeeping tables: raised bucket counts, dead letters and the outbox.

namespace ferry::like {

using storage::AsInt;
using storage::AsText;
using storage::SqlConnection;
using storage::SqlRow;
using storage::SqlValue;

Status LikeDatabase::Layouts(std::map<int64_t, uint32_t>* out) {
  std::unique_ptr<storage::SqlConnectionPool::Lease> lease;
  if (Status s = pool_->Acquire(&lease); !s.ok()) return s;
  std::vector<SqlRow> rows;
  if (Status s =
          lease->Check((*lease)->Query("SELECT content_id, buckets FROM like_layout", {}, &rows));
      !s.ok()) {
    return s;
  }
  out->clear();
  for (const SqlRow& row : rows) (*out)[AsInt(row[0])] = static_cast<uint32_t>(AsInt(row[1]));
  return Status::Ok();
}

Status LikeDatabase::Layout(int64_t content_id, uint32_t* buckets) {
  std::unique_ptr<storage::SqlConnectionPool::Lease> lease;
  if (Status s = pool_->Acquire(&lease); !s.ok()) return s;
  std::vector<SqlRow> rows;
  if (Status s = lease->Check((*lease)->Query(
          "SELECT buckets FROM like_layout WHERE content_id = ?", {content_id}, &rows));
      !s.ok()) {
    return s;
  }
  *buckets = rows.empty() ? 0 : static_cast<uint32_t>(AsInt(rows[0][0]));
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

Status LikeDatabase::AddDeadLetter(const LikeEvent& event, const std::string& reason) {
  return pool_->InTransaction([&](SqlConnection& c) {
    Status s = c.Execute(
        "INSERT INTO like_dead_letter (stream, entry_id, content_id, user_id, liked, version, "
        "bucket, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        {event.stream, event.entry_id, event.content_id, event.user_id,
         int64_t{event.liked ? 1 : 0}, event.version, int64_t{event.bucket},
         reason.substr(0, 1000)});
    // Dead-lettered before (a second claim of the same entry): kept once.
    return s.code() == StatusCode::ALREADY_EXISTS ? Status::Ok() : s;
  });
}

Status LikeDatabase::CountDeadLetters(int64_t* out) {
  std::unique_ptr<storage::SqlConnectionPool::Lease> lease;
  if (Status s = pool_->Acquire(&lease); !s.ok()) return s;
  std::vector<SqlRow> rows;
  Status s = lease->Check((*lease)->Query("SELECT COUNT(*) FROM like_dead_letter", {}, &rows));
  *out = s.ok() && !rows.empty() ? AsInt(rows[0][0]) : 0;
  return s;
}

Status LikeDatabase::ReadOutbox(uint32_t limit, std::vector<LikeEvent>* out) {
  std::unique_ptr<storage::SqlConnectionPool::Lease> lease;
  if (Status s = pool_->Acquire(&lease); !s.ok()) return s;
  std::vector<SqlRow> rows;
  if (Status s = lease->Check((*lease)->Query(
          "SELECT id, content_id, user_id, liked, version, bucket FROM like_outbox ORDER BY id "
          "LIMIT ?",
          {int64_t{limit}}, &rows));
      !s.ok()) {
    return s;
  }
  out->clear();
  for (const SqlRow& row : rows) {
    out->push_back({.content_id = AsInt(row[1]),
                    .user_id = AsText(row[2]),
                    .liked = AsInt(row[3]) != 0,
                    .version = AsInt(row[4]),
                    .bucket = static_cast<uint32_t>(AsInt(row[5])),
                    .entry_id = AsText(row[0])});
  }
  return Status::Ok();
}

Status LikeDatabase::DeleteOutbox(const std::vector<LikeEvent>& relayed) {
  if (relayed.empty()) return Status::Ok();
  std::string sql = "DELETE FROM like_outbox WHERE id IN (";
  std::vector<SqlValue> params;
  for (size_t i = 0; i < relayed.size(); ++i) {
    sql += i == 0 ? "?" : ", ?";
    params.emplace_back(AsInt(relayed[i].entry_id));
  }
  sql += ")";
  std::unique_ptr<storage::SqlConnectionPool::Lease> lease;
  if (Status s = pool_->Acquire(&lease); !s.ok()) return s;
  return lease->Check((*lease)->Execute(sql, params));
}

Status LikeDatabase::TrimOutbox(int64_t before_ms, int64_t* deleted) {
  std::unique_ptr<storage::SqlConnectionPool::Lease> lease;
  if (Status s = pool_->Acquire(&lease); !s.ok()) return s;
  return lease->Check(
      (*lease)->Execute("DELETE FROM like_outbox WHERE created_ms < ?", {before_ms}, deleted));
}

Status LikeDatabase::TrimRequests(int64_t before_ms, int64_t* deleted) {
  std::unique_ptr<storage::SqlConnectionPool::Lease> lease;
  if (Status s = pool_->Acquire(&lease); !s.ok()) return s;
  return lease->Check(
      (*lease)->Execute("DELETE FROM like_request WHERE created_ms < ?", {before_ms}, deleted));
}

}  // namespace ferry::like
