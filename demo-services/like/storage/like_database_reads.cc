#include "storage/like_database.h"

// LikeDatabase's reads: counts, states, pages, a bucket's rows, reconciliation's numbers.

namespace ferry::like {

using storage::AsInt;
using storage::AsText;
using storage::SqlConnection;
using storage::SqlRow;
using storage::SqlValue;

Status LikeDatabase::BucketCounts(int64_t content_id, uint32_t buckets, std::vector<int64_t>* out) {
  std::unique_ptr<storage::SqlConnectionPool::Lease> lease;
  if (Status s = pool_->Acquire(&lease); !s.ok()) return s;
  std::vector<SqlRow> rows;
  if (Status s = lease->Check((*lease)->Query(
          "SELECT bucket, count FROM like_count WHERE content_id = ?", {content_id}, &rows));
      !s.ok()) {
    return s;
  }
  out->assign(buckets, 0);
  for (const SqlRow& row : rows) {
    const int64_t bucket = AsInt(row[0]);
    // A row of a bucket the layout no longer has still counts (until a repair moves it).
    if (bucket >= 0 && bucket < static_cast<int64_t>(buckets)) {
      (*out)[static_cast<size_t>(bucket)] += AsInt(row[1]);
    } else if (!out->empty()) {
      (*out)[0] += AsInt(row[1]);
    }
  }
  return Status::Ok();
}

Status LikeDatabase::HasLiked(const std::string& user_id, std::span<const int64_t> content_ids,
                              std::vector<bool>* out) {
  out->assign(content_ids.size(), false);
  if (content_ids.empty()) return Status::Ok();
  std::string sql =
      "SELECT content_id FROM like_state WHERE user_id = ? AND liked = 1 AND "
      "content_id IN (";
  std::vector<SqlValue> params = {user_id};
  for (size_t i = 0; i < content_ids.size(); ++i) {
    sql += i == 0 ? "?" : ", ?";
    params.emplace_back(content_ids[i]);
  }
  sql += ")";
  std::unique_ptr<storage::SqlConnectionPool::Lease> lease;
  if (Status s = pool_->Acquire(&lease); !s.ok()) return s;
  std::vector<SqlRow> rows;
  if (Status s = lease->Check((*lease)->Query(sql, params, &rows)); !s.ok()) return s;
  for (const SqlRow& row : rows) {
    const int64_t id = AsInt(row[0]);
    for (size_t i = 0; i < content_ids.size(); ++i) {
      if (content_ids[i] == id) (*out)[i] = true;
    }
  }
  return Status::Ok();
}

Status LikeDatabase::ListLikers(int64_t content_id, const std::string& after_user, uint32_t limit,
                                std::vector<std::string>* out) {
  std::unique_ptr<storage::SqlConnectionPool::Lease> lease;
  if (Status s = pool_->Acquire(&lease); !s.ok()) return s;
  std::vector<SqlRow> rows;
  if (Status s = lease->Check((*lease)->Query(
          "SELECT user_id FROM like_state WHERE content_id = ? AND liked = 1 AND user_id > ? "
          "ORDER BY user_id LIMIT ?",
          {content_id, after_user, int64_t{limit}}, &rows));
      !s.ok()) {
    return s;
  }
  out->clear();
  for (const SqlRow& row : rows) out->push_back(AsText(row[0]));
  return Status::Ok();
}

Status LikeDatabase::ListLiked(const std::string& user_id, int64_t after_content, uint32_t limit,
                               std::vector<int64_t>* out) {
  std::unique_ptr<storage::SqlConnectionPool::Lease> lease;
  if (Status s = pool_->Acquire(&lease); !s.ok()) return s;
  std::vector<SqlRow> rows;
  if (Status s = lease->Check((*lease)->Query(
          "SELECT content_id FROM like_state WHERE user_id = ? AND liked = 1 AND content_id > ? "
          "ORDER BY content_id LIMIT ?",
          {user_id, after_content, int64_t{limit}}, &rows));
      !s.ok()) {
    return s;
  }
  out->clear();
  for (const SqlRow& row : rows) out->push_back(AsInt(row[0]));
  return Status::Ok();
}

Status LikeDatabase::CountedContents(std::vector<int64_t>* out) {
  std::unique_ptr<storage::SqlConnectionPool::Lease> lease;
  if (Status s = pool_->Acquire(&lease); !s.ok()) return s;
  std::vector<SqlRow> rows;
  if (Status s = lease->Check((*lease)->Query(
          "SELECT DISTINCT content_id FROM like_count ORDER BY content_id", {}, &rows));
      !s.ok()) {
    return s;
  }
  out->clear();
  for (const SqlRow& row : rows) out->push_back(AsInt(row[0]));
  return Status::Ok();
}

Status LikeDatabase::BucketRows(int64_t content_id, uint32_t bucket, uint32_t buckets,
                                std::vector<LikeRow>* out) {
  std::unique_ptr<storage::SqlConnectionPool::Lease> lease;
  if (Status s = pool_->Acquire(&lease); !s.ok()) return s;
  std::vector<SqlRow> rows;
  // The rows' bucket column is the layout of their last change; a raise since then moved
  // users, so the bucket is recomputed here (a scan of the content: buckets load rarely).
  if (Status s = lease->Check(
          (*lease)->Query("SELECT user_id, liked, version FROM like_state WHERE content_id = ?",
                          {content_id}, &rows));
      !s.ok()) {
    return s;
  }
  out->clear();
  for (const SqlRow& row : rows) {
    std::string user = AsText(row[0]);
    if (BucketLayout::BucketIn(user, buckets) != bucket) continue;
    out->push_back(
        {.user_id = std::move(user), .liked = AsInt(row[1]) != 0, .version = AsInt(row[2])});
  }
  return Status::Ok();
}

Status LikeDatabase::Counts(int64_t content_id, DatabaseCounts* out) {
  std::unique_ptr<storage::SqlConnectionPool::Lease> lease;
  if (Status s = pool_->Acquire(&lease); !s.ok()) return s;
  SqlConnection& c = **lease;
  if (Status s = lease->Check(c.BeginSnapshot()); !s.ok()) return s;
  auto scalar = [&](std::string_view sql, int64_t* value) {
    std::vector<SqlRow> rows;
    Status s = lease->Check(c.Query(sql, {content_id}, &rows));
    *value = s.ok() && !rows.empty() ? AsInt(rows[0][0]) : 0;
    return s;
  };
  Status s =
      scalar("SELECT COUNT(*) FROM like_state WHERE content_id = ? AND liked = 1", &out->likes);
  if (s.ok()) {
    s = scalar("SELECT COALESCE(SUM(count), 0) FROM like_count WHERE content_id = ?",
               &out->counted);
  }
  if (s.ok()) s = scalar("SELECT COUNT(*) FROM like_outbox WHERE content_id = ?", &out->outbox);
  if (!s.ok()) {
    c.Rollback();
    return s;
  }
  return lease->Check(c.Commit());
}
}  // namespace ferry::like
