#include "ferry/storage/sql_placeholders.h"
#include "storage/like_database.h"
#include "storage/like_partition_rows.h"

// LikeDatabase's reads: counts, states, pages, a content's rows, reconciliation's snapshot.

namespace ferry::like {

using storage::AsInt;
using storage::AsText;
using storage::SqlConnection;
using storage::SqlPlaceholders;
using storage::SqlRow;
using storage::SqlValue;

namespace {

// One query on a connection of `pool`.
Status QueryOnce(storage::SqlConnectionPool& pool, std::string_view sql,
                 const std::vector<SqlValue>& params, std::vector<SqlRow>* rows) {
  std::unique_ptr<storage::SqlConnectionPool::Lease> lease;
  if (Status s = pool.Acquire(&lease); !s.ok()) return s;
  return lease->Check((*lease)->Query(sql, params, rows));
}

std::vector<SqlValue> Ids(std::span<const int64_t> ids) {
  return std::vector<SqlValue>(ids.begin(), ids.end());
}

}  // namespace

Status LikeDatabase::CountRows(std::span<const int64_t> content_ids,
                               std::map<int64_t, std::map<uint32_t, int64_t>>* out) {
  out->clear();
  if (content_ids.empty()) return Status::Ok();
  std::vector<SqlRow> rows;
  if (Status s = QueryOnce(*pool_,
                           "SELECT content_id, bucket, count FROM like_count WHERE content_id IN " +
                               SqlPlaceholders(1, content_ids.size()),
                           Ids(content_ids), &rows);
      !s.ok()) {
    return s;
  }
  for (const SqlRow& row : rows) {
    (*out)[AsInt(row[0])][static_cast<uint32_t>(AsInt(row[1]))] += AsInt(row[2]);
  }
  return Status::Ok();
}

Status LikeDatabase::ContentRows(std::span<const int64_t> content_ids,
                                 std::map<int64_t, std::vector<LikeRow>>* out) {
  out->clear();
  if (content_ids.empty()) return Status::Ok();
  std::vector<SqlRow> rows;
  if (Status s = QueryOnce(*pool_,
                           "SELECT content_id, user_id, liked, version, bucket FROM like_state "
                           "WHERE content_id IN " +
                               SqlPlaceholders(1, content_ids.size()),
                           Ids(content_ids), &rows);
      !s.ok()) {
    return s;
  }
  for (const SqlRow& row : rows) {
    (*out)[AsInt(row[0])].push_back({.user_id = AsText(row[1]),
                                     .liked = AsInt(row[2]) != 0,
                                     .version = AsInt(row[3]),
                                     .bucket = static_cast<uint32_t>(AsInt(row[4]))});
  }
  return Status::Ok();
}

Status LikeDatabase::HasLiked(const std::string& user_id, std::span<const int64_t> content_ids,
                              std::vector<bool>* out) {
  out->assign(content_ids.size(), false);
  if (content_ids.empty()) return Status::Ok();
  // Point reads of the primary key, one per content.
  std::vector<SqlValue> params = {user_id};
  params.insert(params.end(), content_ids.begin(), content_ids.end());
  std::vector<SqlRow> rows;
  if (Status s = QueryOnce(*pool_,
                           "SELECT content_id FROM like_state WHERE user_id = ? AND liked = 1 AND "
                           "content_id IN " +
                               SqlPlaceholders(1, content_ids.size()),
                           params, &rows);
      !s.ok()) {
    return s;
  }
  for (const SqlRow& row : rows) {
    const int64_t id = AsInt(row[0]);
    for (size_t i = 0; i < content_ids.size(); ++i) {
      if (content_ids[i] == id) (*out)[i] = true;
    }
  }
  return Status::Ok();
}

Status LikeDatabase::ListLikers(int64_t content_id, int64_t after_version,
                                const std::string& after_user, uint32_t limit,
                                std::vector<std::pair<std::string, int64_t>>* out) {
  std::vector<SqlRow> rows;
  // Newest first along like_state_content_recent (its entries end with the primary key's user).
  const Status s =
      after_version == 0
          ? QueryOnce(*pool_,
                      "SELECT user_id, version FROM like_state WHERE content_id = ? AND liked = 1 "
                      "ORDER BY version DESC, user_id DESC LIMIT ?",
                      {content_id, int64_t{limit}}, &rows)
          : QueryOnce(*pool_,
                      "SELECT user_id, version FROM like_state WHERE content_id = ? AND liked = 1 "
                      "AND (version < ? OR (version = ? AND user_id < ?)) ORDER BY version DESC, "
                      "user_id DESC LIMIT ?",
                      {content_id, after_version, after_version, after_user, int64_t{limit}},
                      &rows);
  if (!s.ok()) return s;
  out->clear();
  for (const SqlRow& row : rows) out->emplace_back(AsText(row[0]), AsInt(row[1]));
  return Status::Ok();
}

Status LikeDatabase::ListLiked(const std::string& user_id, int64_t after_version,
                               int64_t after_content, uint32_t limit,
                               std::vector<std::pair<int64_t, int64_t>>* out) {
  std::vector<SqlRow> rows;
  const Status s =
      after_version == 0
          ? QueryOnce(*pool_,
                      "SELECT content_id, version FROM like_state WHERE user_id = ? AND liked = 1 "
                      "ORDER BY version DESC, content_id DESC LIMIT ?",
                      {user_id, int64_t{limit}}, &rows)
          : QueryOnce(*pool_,
                      "SELECT content_id, version FROM like_state WHERE user_id = ? AND liked = 1 "
                      "AND (version < ? OR (version = ? AND content_id < ?)) ORDER BY version "
                      "DESC, content_id DESC LIMIT ?",
                      {user_id, after_version, after_version, after_content, int64_t{limit}},
                      &rows);
  if (!s.ok()) return s;
  out->clear();
  for (const SqlRow& row : rows) out->emplace_back(AsInt(row[0]), AsInt(row[1]));
  return Status::Ok();
}

Status LikeDatabase::CountedContents(int64_t after, uint32_t limit, std::vector<int64_t>* out) {
  std::vector<SqlRow> rows;
  if (Status s = QueryOnce(*pool_,
                           "SELECT DISTINCT content_id FROM like_count WHERE content_id > ? ORDER "
                           "BY content_id LIMIT ?",
                           {after, int64_t{limit}}, &rows);
      !s.ok()) {
    return s;
  }
  out->clear();
  for (const SqlRow& row : rows) out->push_back(AsInt(row[0]));
  return Status::Ok();
}

Status LikeDatabase::ContentSnapshot(int64_t content_id, std::span<const uint32_t> partitions,
                                     ContentRecord* out) {
  std::unique_ptr<storage::SqlConnectionPool::Lease> lease;
  if (Status s = pool_->Acquire(&lease); !s.ok()) return s;
  SqlConnection& c = **lease;
  if (Status s = lease->Check(c.BeginSnapshot()); !s.ok()) return s;
  *out = {};
  auto read = [&]() -> Status {
    std::vector<SqlRow> rows;
    if (Status s = c.Query("SELECT user_id, liked, version, bucket FROM like_state WHERE "
                           "content_id = ?",
                           {content_id}, &rows);
        !s.ok()) {
      return s;
    }
    for (const SqlRow& row : rows) {
      out->rows.push_back({.user_id = AsText(row[0]),
                           .liked = AsInt(row[1]) != 0,
                           .version = AsInt(row[2]),
                           .bucket = static_cast<uint32_t>(AsInt(row[3]))});
      out->likes += out->rows.back().liked ? 1 : 0;
    }
    rows.clear();
    if (Status s = c.Query("SELECT COALESCE(SUM(count), 0) FROM like_count WHERE content_id = ?",
                           {content_id}, &rows);
        !s.ok()) {
      return s;
    }
    out->counted = rows.empty() ? 0 : AsInt(rows[0][0]);
    for (uint32_t partition : partitions) {
      rows.clear();
      if (Status s =
              c.Query("SELECT generation, last_id, feed_seq FROM like_partition WHERE part = ?",
                      {int64_t{partition}}, &rows);
          !s.ok()) {
        return s;
      }
      if (!rows.empty()) out->checkpoints[partition] = CheckpointOf(rows[0]);
    }
    rows.clear();
    if (Status s = c.Query("SELECT id, user_id, liked, version, bucket FROM like_outbox WHERE "
                           "content_id = ? ORDER BY id",
                           {content_id}, &rows);
        !s.ok()) {
      return s;
    }
    for (const SqlRow& row : rows) {
      out->outbox.push_back({.content_id = content_id,
                             .user_id = AsText(row[1]),
                             .liked = AsInt(row[2]) != 0,
                             .version = AsInt(row[3]),
                             .bucket = static_cast<uint32_t>(AsInt(row[4])),
                             .entry_id = AsText(row[0])});
    }
    return Status::Ok();
  };
  if (Status s = lease->Check(read()); !s.ok()) {
    c.Rollback();
    return s;
  }
  return lease->Check(c.Commit());
}

}  // namespace ferry::like
