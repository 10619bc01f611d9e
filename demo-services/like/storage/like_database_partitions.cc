#include <chrono>

#include "ferry/storage/sql_placeholders.h"
#include "storage/like_database.h"
#include "storage/like_partition_rows.h"

// LikeDatabase's partitions: their rows, the change feed they number, and the outbox that
// database-first relays per partition.

namespace ferry::like {

using storage::AsInt;
using storage::AsText;
using storage::SqlConnection;
using storage::SqlDialect;
using storage::SqlPlaceholders;
using storage::SqlRow;
using storage::SqlValue;

namespace {

// Feed rows per statement (seven parameters each).
constexpr size_t kFeedRowsPerStatement = 500;

}  // namespace

PartitionCheckpoint CheckpointOf(const SqlRow& row) {
  return {.generation = AsInt(row[0]), .last_id = AsText(row[1]), .feed_seq = AsInt(row[2])};
}

Status LockPartition(SqlConnection& c, uint32_t partition, PartitionCheckpoint* out) {
  std::vector<SqlRow> rows;
  if (Status s = c.Query(std::string("SELECT generation, last_id, feed_seq FROM like_partition "
                                     "WHERE part = ?") +
                             (c.dialect() == SqlDialect::kMariaDb ? " FOR UPDATE" : ""),
                         {int64_t{partition}}, &rows);
      !s.ok()) {
    return s;
  }
  if (rows.empty()) {
    return Status(StatusCode::FAILED_PRECONDITION,
                  "like_partition has no row for partition " + std::to_string(partition) +
                      " (a database initialized for fewer partitions)");
  }
  *out = CheckpointOf(rows[0]);
  return Status::Ok();
}

Status SavePartition(SqlConnection& c, uint32_t partition, const PartitionCheckpoint& checkpoint) {
  return c.Execute(
      "UPDATE like_partition SET generation = ?, last_id = ?, feed_seq = ? WHERE "
      "part = ?",
      {checkpoint.generation, checkpoint.last_id, checkpoint.feed_seq, int64_t{partition}});
}

Status AppendToFeed(SqlConnection& c, uint32_t partition, int64_t first_seq,
                    std::span<const LikeEvent* const> events, int64_t now_ms) {
  for (size_t from = 0; from < events.size(); from += kFeedRowsPerStatement) {
    const size_t n = std::min(kFeedRowsPerStatement, events.size() - from);
    std::vector<SqlValue> params;
    params.reserve(7 * n);
    for (size_t i = from; i < from + n; ++i) {
      const LikeEvent& e = *events[i];
      params.insert(params.end(),
                    {int64_t{partition}, first_seq + static_cast<int64_t>(i), e.content_id,
                     e.user_id, int64_t{e.liked ? 1 : 0}, e.version, now_ms});
    }
    if (Status s = c.Execute("INSERT INTO like_feed (part, seq, content_id, user_id, liked, "
                             "version, created_ms) VALUES " +
                                 SqlPlaceholders(n, 7),
                             params);
        !s.ok()) {
      return s;
    }
  }
  return Status::Ok();
}

Status LikeDatabase::Checkpoint(uint32_t partition, PartitionCheckpoint* out) {
  std::unique_ptr<storage::SqlConnectionPool::Lease> lease;
  if (Status s = pool_->Acquire(&lease); !s.ok()) return s;
  std::vector<SqlRow> rows;
  if (Status s = lease->Check(
          (*lease)->Query("SELECT generation, last_id, feed_seq FROM like_partition WHERE part = ?",
                          {int64_t{partition}}, &rows));
      !s.ok()) {
    return s;
  }
  if (rows.empty())
    return Status(StatusCode::NOT_FOUND, "no partition " + std::to_string(partition));
  *out = CheckpointOf(rows[0]);
  return Status::Ok();
}

Status LikeDatabase::ReadOutbox(uint32_t partition, uint32_t limit, std::vector<LikeEvent>* out) {
  std::unique_ptr<storage::SqlConnectionPool::Lease> lease;
  if (Status s = pool_->Acquire(&lease); !s.ok()) return s;
  std::vector<SqlRow> rows;
  if (Status s = lease->Check((*lease)->Query(
          "SELECT id, content_id, user_id, liked, version, bucket FROM like_outbox WHERE part = ? "
          "ORDER BY id LIMIT ?",
          {int64_t{partition}, int64_t{limit}}, &rows));
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

Status LikeDatabase::CountOutbox(int64_t* out) {
  std::unique_ptr<storage::SqlConnectionPool::Lease> lease;
  if (Status s = pool_->Acquire(&lease); !s.ok()) return s;
  std::vector<SqlRow> rows;
  Status s = lease->Check((*lease)->Query("SELECT COUNT(*) FROM like_outbox", {}, &rows));
  *out = s.ok() && !rows.empty() ? AsInt(rows[0][0]) : 0;
  return s;
}

Status LikeDatabase::RelayDone(uint32_t partition, const std::vector<LikeEvent>& relayed) {
  if (relayed.empty()) return Status::Ok();
  return pool_->InTransaction([&](SqlConnection& c) {
    PartitionCheckpoint checkpoint;
    if (Status s = LockPartition(c, partition, &checkpoint); !s.ok()) return s;
    std::vector<SqlValue> ids;
    for (const LikeEvent& e : relayed) ids.emplace_back(AsInt(e.entry_id));
    // Rows another relay of the partition already moved are not in the feed twice.
    int64_t deleted = 0;
    if (Status s = c.Execute(
            "DELETE FROM like_outbox WHERE id IN " + SqlPlaceholders(1, ids.size()), ids, &deleted);
        !s.ok()) {
      return s;
    }
    if (deleted != static_cast<int64_t>(relayed.size())) {
      // Not ABORTED, which the transaction would retry to the same end: the other relay's feed
      // rows stand, this one's are rolled back, and the rows left are read again.
      return Status(StatusCode::FAILED_PRECONDITION,
                    "outbox rows of partition " + std::to_string(partition) +
                        " were relayed by another relay meanwhile");
    }
    std::vector<const LikeEvent*> events;
    for (const LikeEvent& e : relayed) events.push_back(&e);
    if (Status s = AppendToFeed(c, partition, checkpoint.feed_seq + 1, events, UnixMs()); !s.ok()) {
      return s;
    }
    checkpoint.feed_seq += static_cast<int64_t>(events.size());
    return SavePartition(c, partition, checkpoint);
  });
}

Status LikeDatabase::ListChanges(uint32_t partition, int64_t after_seq, uint32_t limit,
                                 std::vector<FeedChange>* out) {
  std::unique_ptr<storage::SqlConnectionPool::Lease> lease;
  if (Status s = pool_->Acquire(&lease); !s.ok()) return s;
  std::vector<SqlRow> rows;
  if (Status s = lease->Check((*lease)->Query(
          "SELECT seq, content_id, user_id, liked, version, created_ms FROM like_feed WHERE "
          "part = ? AND seq > ? ORDER BY seq LIMIT ?",
          {int64_t{partition}, after_seq, int64_t{limit}}, &rows));
      !s.ok()) {
    return s;
  }
  out->clear();
  for (const SqlRow& row : rows) {
    out->push_back({.partition = partition,
                    .seq = AsInt(row[0]),
                    .content_id = AsInt(row[1]),
                    .user_id = AsText(row[2]),
                    .liked = AsInt(row[3]) != 0,
                    .version = AsInt(row[4]),
                    .created_ms = AsInt(row[5])});
  }
  return Status::Ok();
}

Status LikeDatabase::TrimFeed(int64_t before_ms, uint32_t limit, int64_t* deleted) {
  std::unique_ptr<storage::SqlConnectionPool::Lease> lease;
  if (Status s = pool_->Acquire(&lease); !s.ok()) return s;
  SqlConnection& c = **lease;
  // SQLite deletes with LIMIT only when built for it: by the oldest rows' keys instead.
  return lease->Check(c.Execute(
      c.dialect() == SqlDialect::kSqlite
          ? "DELETE FROM like_feed WHERE rowid IN (SELECT rowid FROM like_feed WHERE created_ms "
            "< ? LIMIT ?)"
          : "DELETE FROM like_feed WHERE created_ms < ? LIMIT ?",
      {before_ms, int64_t{limit}}, deleted));
}

Status LikeDatabase::RecentlyChanged(int64_t since_ms, uint32_t limit, std::vector<int64_t>* out) {
  std::unique_ptr<storage::SqlConnectionPool::Lease> lease;
  if (Status s = pool_->Acquire(&lease); !s.ok()) return s;
  std::vector<SqlRow> rows;
  if (Status s = lease->Check(
          (*lease)->Query("SELECT DISTINCT content_id FROM like_feed WHERE created_ms >= ? LIMIT ?",
                          {since_ms, int64_t{limit}}, &rows));
      !s.ok()) {
    return s;
  }
  out->clear();
  for (const SqlRow& row : rows) out->push_back(AsInt(row[0]));
  return Status::Ok();
}

}  // namespace ferry::like
