#include "storage/like_database.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <span>
#include <tuple>

#include "ferry/storage/mariadb_connection.h"
#include "ferry/storage/sqlite_connection.h"
#include "storage/like_schema.h"

namespace ferry::like {

using storage::AsInt;
using storage::AsText;
using storage::SqlConnection;
using storage::SqlDialect;
using storage::SqlRow;
using storage::SqlValue;

namespace {

int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The pair's row, locked until the transaction ends (SQLite's BEGIN IMMEDIATE already holds
// the whole database).
std::string_view SelectStateSql(SqlDialect dialect) {
  return dialect == SqlDialect::kSqlite
             ? "SELECT liked, version, bucket FROM like_state WHERE content_id = ? AND user_id = ?"
             : "SELECT liked, version, bucket FROM like_state WHERE content_id = ? AND user_id = ? "
               "FOR UPDATE";
}

// The bucket a pair's row names: where its like was counted. A like counts in (and moves the
// row to) the user's bucket now; an unlike or a repeat leaves the row where it was counted, so
// that after a raise moved the user no count row goes below zero.
int64_t CountedBucket(bool row_exists, bool flips, bool liked, int64_t user_bucket,
                      int64_t counted_in) {
  return !row_exists || (flips && liked) ? user_bucket : counted_in;
}

Status WriteRow(SqlConnection& c, bool row_exists, int64_t content_id, const std::string& user_id,
                bool liked, int64_t version, int64_t bucket) {
  const int64_t l = liked ? 1 : 0;
  return row_exists ? c.Execute(
                          "UPDATE like_state SET liked = ?, version = ?, bucket = ? "
                          "WHERE content_id = ? AND user_id = ?",
                          {l, version, bucket, content_id, user_id})
                    : c.Execute(
                          "INSERT INTO like_state (content_id, user_id, liked, version, bucket) "
                          "VALUES (?, ?, ?, ?, ?)",
                          {content_id, user_id, l, version, bucket});
}

Status ReadBucketCount(SqlConnection& c, int64_t content_id, SetLikeResult* out) {
  std::vector<SqlRow> rows;
  if (Status s = c.Query("SELECT count FROM like_count WHERE content_id = ? AND bucket = ?",
                         {content_id, int64_t{out->bucket}}, &rows);
      !s.ok()) {
    return s;
  }
  out->bucket_count = rows.empty() ? 0 : AsInt(rows[0][0]);
  return Status::Ok();
}

// (content, bucket) -> how far a batch moves that count row.
using CountDeltas = std::map<std::pair<int64_t, int64_t>, int64_t>;

// One pair's events, ascending by version, applied to its locked row: each only if newer than
// what the row holds by then, the row written once, its count moves added to *deltas. The
// same outcome as applying them one by one, in any order (CountedBucket).
Status ApplyToPair(SqlConnection& c, std::span<const LikeEvent* const> events, CountDeltas* deltas,
                   int* applied, int* changed) {
  const LikeEvent& pair = *events.front();
  std::vector<SqlRow> rows;
  if (Status s = c.Query(SelectStateSql(c.dialect()), {pair.content_id, pair.user_id}, &rows);
      !s.ok()) {
    return s;
  }
  const bool existed = !rows.empty();
  bool exists = existed;
  bool liked = exists && AsInt(rows[0][0]) != 0;
  int64_t version = exists ? AsInt(rows[0][1]) : 0;
  int64_t bucket = exists ? AsInt(rows[0][2]) : 0;
  bool dirty = false;
  for (const LikeEvent* e : events) {
    if (exists && version >= e->version) continue;  // stale or repeated
    ++*applied;
    const bool flips = liked != e->liked;
    bucket = CountedBucket(exists, flips, e->liked, e->bucket, bucket);
    if (flips) {
      ++*changed;
      (*deltas)[{pair.content_id, bucket}] += e->liked ? 1 : -1;
    }
    exists = true;
    liked = e->liked;
    version = e->version;
    dirty = true;
  }
  if (!dirty) return Status::Ok();
  return WriteRow(c, existed, pair.content_id, pair.user_id, liked, version, bucket);
}

}  // namespace

std::unique_ptr<storage::SqlConnectionPool> SqliteLikePool(const std::string& path,
                                                           uint32_t connections) {
  storage::SqliteOptions options{.path = path};
  return std::make_unique<storage::SqlConnectionPool>(
      [options](std::unique_ptr<SqlConnection>* c) {
        return storage::SqliteConnection::Open(options, c);
      },
      connections);
}

std::unique_ptr<storage::SqlConnectionPool> MariaDbLikePool(storage::MariaDbOptions options,
                                                            uint32_t connections) {
  // READ COMMITTED: locking the row of a pair that has none takes no gap lock, so writers of
  // different new pairs never deadlock on each other's gaps; two writers of one new pair meet
  // on the primary key (ALREADY_EXISTS) and the loser retries.
  options.isolation = storage::MariaDbIsolation::kReadCommitted;
  return std::make_unique<storage::SqlConnectionPool>(
      [options](std::unique_ptr<SqlConnection>* c) {
        return storage::MariaDbConnection::Open(options, c);
      },
      connections);
}

Status LikeDatabase::Initialize() {
  std::unique_ptr<storage::SqlConnectionPool::Lease> lease;
  if (Status s = pool_->Acquire(&lease); !s.ok()) return s;
  return lease->Check((*lease)->ExecuteScript(LikeSchema((*lease)->dialect())));
}

Status LikeDatabase::Apply(const LikeEvent& event, bool* applied, bool* changed) {
  int applied_count = 0;
  int changed_count = 0;
  Status s = ApplyBatch({event}, &applied_count, &changed_count);
  *applied = applied_count > 0;
  *changed = changed_count > 0;
  return s;
}

Status LikeDatabase::ApplyBatch(const std::vector<LikeEvent>& events, int* applied, int* changed) {
  std::vector<const LikeEvent*> sorted;
  sorted.reserve(events.size());
  for (const LikeEvent& e : events) sorted.push_back(&e);
  std::sort(sorted.begin(), sorted.end(), [](const LikeEvent* a, const LikeEvent* b) {
    return std::tie(a->content_id, a->user_id, a->version) <
           std::tie(b->content_id, b->user_id, b->version);
  });
  return pool_->InTransaction([&](SqlConnection& c) {
    *applied = 0;
    *changed = 0;
    CountDeltas deltas;
    for (size_t from = 0; from < sorted.size();) {
      size_t to = from + 1;
      while (to < sorted.size() && sorted[to]->content_id == sorted[from]->content_id &&
             sorted[to]->user_id == sorted[from]->user_id) {
        ++to;
      }
      if (Status s =
              ApplyToPair(c, std::span(sorted).subspan(from, to - from), &deltas, applied, changed);
          !s.ok()) {
        return s;
      }
      from = to;
    }
    // Count rows last and in key order, so that writers of overlapping batches lock the same
    // rows in the same order.
    for (const auto& [key, delta] : deltas) {
      if (delta == 0) continue;
      if (Status s = c.Execute(AddToCountSql(c.dialect()), {key.first, key.second, delta});
          !s.ok()) {
        return s;
      }
    }
    return Status::Ok();
  });
}

Status LikeDatabase::SetLike(int64_t content_id, const std::string& user_id, uint32_t bucket,
                             bool liked, const std::string& request_id, int64_t now_us,
                             SetLikeResult* out) {
  return pool_->InTransaction([&](SqlConnection& c) {
    *out = SetLikeResult{.bucket = bucket};
    std::vector<SqlRow> rows;
    if (Status s = c.Query(SelectStateSql(c.dialect()), {content_id, user_id}, &rows); !s.ok()) {
      return s;
    }
    const bool exists = !rows.empty();
    const bool was_liked = exists && AsInt(rows[0][0]) != 0;
    out->version = exists ? AsInt(rows[0][1]) : 0;
    if (!request_id.empty()) {
      // Under the pair's lock (or, for a pair without a row, decided by the insert below).
      std::vector<SqlRow> seen;
      if (Status s = c.Query("SELECT liked, changed FROM like_request WHERE content_id = ? AND "
                             "user_id = ? AND request_id = ?",
                             {content_id, user_id, request_id}, &seen);
          !s.ok()) {
        return s;
      }
      if (!seen.empty()) {
        if ((AsInt(seen[0][0]) != 0) != liked) return RequestIdReused(request_id, liked);
        out->replayed = true;
        out->changed = AsInt(seen[0][1]) != 0;
        if (exists) out->bucket = static_cast<uint32_t>(AsInt(rows[0][2]));
        return ReadBucketCount(c, content_id, out);
      }
      if (Status s = c.Execute(
              "INSERT INTO like_request (content_id, user_id, request_id, liked, changed, "
              "created_ms) VALUES (?, ?, ?, ?, ?, ?)",
              {content_id, user_id, request_id, int64_t{liked ? 1 : 0},
               int64_t{was_liked != liked ? 1 : 0}, WallMs()});
          !s.ok()) {
        return s;
      }
    }
    if (was_liked != liked) {
      out->changed = true;
      out->version = std::max(out->version + 1, now_us);
      // The count that moves: an unlike's is the bucket its like was counted in.
      const int64_t counted =
          CountedBucket(exists, true, liked, bucket, exists ? AsInt(rows[0][2]) : 0);
      out->bucket = static_cast<uint32_t>(counted);
      if (Status s = WriteRow(c, exists, content_id, user_id, liked, out->version, counted);
          !s.ok()) {
        return s;
      }
      if (Status s =
              c.Execute(AddToCountSql(c.dialect()), {content_id, counted, int64_t{liked ? 1 : -1}});
          !s.ok()) {
        return s;
      }
      if (Status s = c.Execute(
              "INSERT INTO like_outbox (content_id, user_id, liked, version, bucket, created_ms) "
              "VALUES (?, ?, ?, ?, ?, ?)",
              {content_id, user_id, int64_t{liked ? 1 : 0}, out->version, int64_t{bucket},
               WallMs()});
          !s.ok()) {
        return s;
      }
    }
    return ReadBucketCount(c, content_id, out);
  });
}

Status LikeDatabase::RepairCounts(int64_t content_id, const BucketLayout& layout, bool* changed) {
  return pool_->InTransaction([&](SqlConnection& c) {
    std::vector<SqlRow> rows;
    if (Status s = c.Query("SELECT user_id, liked, bucket FROM like_state WHERE content_id = ?",
                           {content_id}, &rows);
        !s.ok()) {
      return s;
    }
    std::map<int64_t, int64_t> want;
    for (const SqlRow& row : rows) {
      const std::string user = AsText(row[0]);
      const int64_t bucket = layout.BucketOf(content_id, user);
      if (AsInt(row[1]) != 0) ++want[bucket];
      if (AsInt(row[2]) != bucket) {
        if (Status s =
                c.Execute("UPDATE like_state SET bucket = ? WHERE content_id = ? AND user_id = ?",
                          {bucket, content_id, user});
            !s.ok()) {
          return s;
        }
      }
    }
    rows.clear();
    if (Status s = c.Query("SELECT bucket, count FROM like_count WHERE content_id = ?",
                           {content_id}, &rows);
        !s.ok()) {
      return s;
    }
    std::map<int64_t, int64_t> have;
    for (const SqlRow& row : rows) have[AsInt(row[0])] = AsInt(row[1]);
    std::erase_if(want, [](const auto& entry) { return entry.second == 0; });
    std::erase_if(have, [](const auto& entry) { return entry.second == 0; });
    *changed = want != have;
    if (!*changed) return Status::Ok();
    if (Status s = c.Execute("DELETE FROM like_count WHERE content_id = ?", {content_id});
        !s.ok()) {
      return s;
    }
    for (const auto& [bucket, count] : want) {
      if (Status s = c.Execute(AddToCountSql(c.dialect()), {content_id, bucket, count}); !s.ok()) {
        return s;
      }
    }
    return Status::Ok();
  });
}
}  // namespace ferry::like
