#include "storage/like_database.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <span>
#include <tuple>

#include "ferry/storage/mariadb_connection.h"
#include "ferry/storage/sql_columns.h"
#include "ferry/storage/sql_placeholders.h"
#include "ferry/storage/sqlite_connection.h"
#include "storage/like_partition_rows.h"
#include "storage/like_schema.h"

namespace ferry::like {

using storage::AsInt;
using storage::AsText;
using storage::SqlConnection;
using storage::SqlDialect;
using storage::SqlPlaceholders;
using storage::SqlRow;
using storage::SqlValue;

namespace {

// The bucket a pair's row names: where its like was counted. A like counts in (and moves the
// row to) the user's bucket now; an unlike or a repeat leaves the row where it was counted, so
// that after a raise moved the user no count row goes below zero.
int64_t CountedBucket(bool row_exists, bool flips, bool liked, int64_t user_bucket,
                      int64_t counted_in) {
  return !row_exists || (flips && liked) ? user_bucket : counted_in;
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

// Pairs (or count rows) per statement: five parameters a row stays far below SQLite's limit.
constexpr size_t kRowsPerStatement = 1000;

// What like_state holds of one pair, or would.
struct PairRow {
  bool exists = false;
  bool liked = false;
  int64_t version = 0;
  int64_t bucket = 0;
};
using PairKey = std::pair<int64_t, std::string>;

// Pairs per row-value IN list: MariaDB turns a list of in_predicate_conversion_threshold
// (1000) or more into a subquery.
constexpr size_t kPairsPerLock = 500;

// The rows of `pairs` (sorted by content, then user), read and locked until the transaction
// ends: one statement per kPairsPerLock pairs, `(content_id, user_id) IN (...)`. MariaDB gets
// FORCE INDEX (PRIMARY): otherwise its range optimizer also weighs like_state's other indexes,
// which for 256 pairs costs ~40 times the read itself; and the row-value list costs half of an
// OR of per-content IN lists (4 against 8 µs a pair).
Status LockRows(SqlConnection& c, std::span<const PairKey> pairs, std::map<PairKey, PairRow>* out) {
  const bool sqlite = c.dialect() == SqlDialect::kSqlite;
  for (size_t from = 0; from < pairs.size(); from += kPairsPerLock) {
    const auto chunk = pairs.subspan(from, std::min(kPairsPerLock, pairs.size() - from));
    // SQLite takes a row-value list only as a subquery, and its BEGIN IMMEDIATE already holds
    // the whole database.
    const std::string sql = std::string("SELECT content_id, user_id, liked, version, bucket ") +
                            (sqlite ? "FROM like_state WHERE (content_id, user_id) IN (VALUES "
                                    : "FROM like_state FORCE INDEX (PRIMARY) WHERE (content_id, "
                                      "user_id) IN (") +
                            SqlPlaceholders(chunk.size(), 2) + (sqlite ? ")" : ") FOR UPDATE");
    std::vector<SqlValue> params;
    params.reserve(2 * chunk.size());
    for (const PairKey& pair : chunk) {
      params.emplace_back(pair.first);
      params.emplace_back(pair.second);
    }
    std::vector<SqlRow> rows;
    if (Status s = c.Query(sql, params, &rows); !s.ok()) return s;
    for (const SqlRow& row : rows) {
      (*out)[{AsInt(row[0]), AsText(row[1])}] = {.exists = true,
                                                 .liked = AsInt(row[2]) != 0,
                                                 .version = AsInt(row[3]),
                                                 .bucket = AsInt(row[4])};
    }
  }
  return Status::Ok();
}

// One pair's events, ascending by version, applied to its row: each only if newer than what
// the row holds by then, its count moves added to *deltas, and appended to *applied_events.
// The same outcome as applying them one by one, in any order (CountedBucket). A pair without a
// row takes no event older than `horizon_version`: its tombstone may have been trimmed. True
// if the row changed.
bool ApplyToPair(std::span<const LikeEvent* const> events, int64_t horizon_version, PairRow* row,
                 CountDeltas* deltas, std::vector<const LikeEvent*>* applied_events, int* changed) {
  bool dirty = false;
  for (const LikeEvent* e : events) {
    if (row->exists && row->version >= e->version) continue;  // stale or repeated
    if (!row->exists && e->version < horizon_version) continue;
    applied_events->push_back(e);
    const bool flips = row->liked != e->liked;
    row->bucket = CountedBucket(row->exists, flips, e->liked, e->bucket, row->bucket);
    if (flips) {
      ++*changed;
      (*deltas)[{e->content_id, row->bucket}] += e->liked ? 1 : -1;
    }
    *row = {.exists = true, .liked = e->liked, .version = e->version, .bucket = row->bucket};
    dirty = true;
  }
  return dirty;
}

// The rows written, one statement per kRowsPerStatement. Rows the transaction found (and so
// locked) are overwritten. New ones are inserted without an upsert: under READ COMMITTED,
// reading a missing row locks nothing, so a concurrent batch may insert the same pair first,
// and the duplicate key must fail this transaction (ALREADY_EXISTS, retried by InTransaction)
// rather than silently count the pair twice.
Status WriteRows(SqlConnection& c, const std::vector<std::pair<const PairKey*, PairRow>>& rows,
                 bool found) {
  std::string_view upsert;
  if (found) {
    upsert = c.dialect() == SqlDialect::kSqlite
                 ? " ON CONFLICT (content_id, user_id) DO UPDATE SET liked = excluded.liked, "
                   "version = excluded.version, bucket = excluded.bucket"
                 : " ON DUPLICATE KEY UPDATE liked = VALUES(liked), version = VALUES(version), "
                   "bucket = VALUES(bucket)";
  }
  for (size_t from = 0; from < rows.size(); from += kRowsPerStatement) {
    const size_t n = std::min(kRowsPerStatement, rows.size() - from);
    std::vector<SqlValue> params;
    params.reserve(5 * n);
    for (size_t i = from; i < from + n; ++i) {
      const auto& [key, row] = rows[i];
      params.insert(params.end(),
                    {key->first, key->second, int64_t{row.liked ? 1 : 0}, row.version, row.bucket});
    }
    if (Status s = c.Execute("INSERT INTO like_state (content_id, user_id, liked, version, "
                             "bucket) VALUES " +
                                 SqlPlaceholders(n, 5) + std::string(upsert),
                             params);
        !s.ok()) {
      return s;
    }
  }
  return Status::Ok();
}

// The count rows moved, in key order, so that writers of overlapping batches lock the same
// rows in the same order.
Status AddToCounts(SqlConnection& c, const CountDeltas& deltas) {
  std::vector<SqlValue> params;
  size_t n = 0;
  auto flush = [&]() -> Status {
    if (n == 0) return Status::Ok();
    Status s = c.Execute(AddToCountsSql(c.dialect(), n), params);
    params.clear();
    n = 0;
    return s;
  };
  for (const auto& [key, delta] : deltas) {
    if (delta == 0) continue;
    params.insert(params.end(), {key.first, key.second, delta});
    if (++n == kRowsPerStatement) {
      if (Status s = flush(); !s.ok()) return s;
    }
  }
  return flush();
}

// `events` applied in the open transaction, as LikeDatabase::ApplyBatch describes; those that
// advanced their row in *applied_events (by pair, ascending version).
Status ApplyEvents(SqlConnection& c, std::span<const LikeEvent* const> events,
                   int64_t horizon_version, std::vector<const LikeEvent*>* applied_events,
                   int* changed) {
  std::vector<const LikeEvent*> sorted(events.begin(), events.end());
  std::sort(sorted.begin(), sorted.end(), [](const LikeEvent* a, const LikeEvent* b) {
    return std::tie(a->content_id, a->user_id, a->version) <
           std::tie(b->content_id, b->user_id, b->version);
  });
  // Each pair's events: sorted[starts[i]] up to sorted[starts[i + 1]].
  std::vector<PairKey> pairs;
  std::vector<size_t> starts;
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (i == 0 || sorted[i]->content_id != sorted[i - 1]->content_id ||
        sorted[i]->user_id != sorted[i - 1]->user_id) {
      pairs.emplace_back(sorted[i]->content_id, sorted[i]->user_id);
      starts.push_back(i);
    }
  }
  starts.push_back(sorted.size());
  applied_events->clear();
  *changed = 0;
  std::map<PairKey, PairRow> rows;
  if (Status s = LockRows(c, pairs, &rows); !s.ok()) return s;
  CountDeltas deltas;
  std::vector<std::pair<const PairKey*, PairRow>> found;
  std::vector<std::pair<const PairKey*, PairRow>> added;
  for (size_t p = 0; p < pairs.size(); ++p) {
    PairRow row = rows[pairs[p]];
    const bool existed = row.exists;
    const auto pair_events = std::span(sorted).subspan(starts[p], starts[p + 1] - starts[p]);
    if (ApplyToPair(pair_events, horizon_version, &row, &deltas, applied_events, changed)) {
      (existed ? found : added).emplace_back(&pairs[p], row);
    }
  }
  if (Status s = WriteRows(c, found, true); !s.ok()) return s;
  if (Status s = WriteRows(c, added, false); !s.ok()) return s;
  return AddToCounts(c, deltas);
}

// Columns added to tables of an earlier version, which SQLite's ALTER TABLE cannot add "if
// not exists" in the schema's script.
Status AddMissingSqliteColumns(SqlConnection& c) {
  const std::pair<const char*, const char*> added[] = {
      {"like_outbox", "part INTEGER NOT NULL DEFAULT 0"},
      {"like_dead_letter", "redrives INTEGER NOT NULL DEFAULT 0"},
      {"like_dead_letter", "created_ms INTEGER NOT NULL DEFAULT 0"}};
  for (const auto& [table, column] : added) {
    if (Status s = storage::AddColumnIfMissing(c, table, column); !s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace

Status AddDeadLetter(SqlConnection& c, const DeadLetter& d, int64_t now_ms) {
  const LikeEvent& e = d.event;
  Status s = c.Execute(
      "INSERT INTO like_dead_letter (stream, entry_id, content_id, user_id, liked, version, "
      "bucket, reason, redrives, created_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      {e.stream, e.entry_id, e.content_id, e.user_id, int64_t{e.liked ? 1 : 0}, e.version,
       int64_t{e.bucket}, d.reason.substr(0, 1000), e.redrives, now_ms});
  // Kept before (the same entry read again after a takeover): kept once.
  return s.code() == StatusCode::ALREADY_EXISTS ? Status::Ok() : s;
}

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
  SqlConnection& c = **lease;
  if (c.dialect() == SqlDialect::kSqlite) {
    // SQLite has no ADD COLUMN IF NOT EXISTS: tables an earlier version made get theirs here.
    if (Status s = lease->Check(AddMissingSqliteColumns(c)); !s.ok()) return s;
  }
  if (Status s = lease->Check(c.ExecuteScript(LikeSchema(c.dialect()))); !s.ok()) return s;
  lease.reset();
  return RecordPartitions();
}

Status LikeDatabase::ApplyBatch(const std::vector<LikeEvent>& events, int* applied, int* changed,
                                int64_t horizon_version) {
  std::vector<const LikeEvent*> pointers;
  pointers.reserve(events.size());
  for (const LikeEvent& e : events) pointers.push_back(&e);
  return pool_->InTransaction([&](SqlConnection& c) {
    std::vector<const LikeEvent*> applied_events;
    Status s = ApplyEvents(c, pointers, horizon_version, &applied_events, changed);
    *applied = static_cast<int>(applied_events.size());
    return s;
  });
}

Status LikeDatabase::ApplyPartitions(const std::vector<PartitionBatch>& batches,
                                     int64_t horizon_version,
                                     std::map<uint32_t, PartitionCheckpoint>* after) {
  std::vector<const PartitionBatch*> ordered;
  std::vector<const LikeEvent*> events;
  for (const PartitionBatch& b : batches) {
    ordered.push_back(&b);
    for (const LikeEvent& e : b.events) events.push_back(&e);
  }
  // Partition rows are locked in one order by every writer.
  std::sort(ordered.begin(), ordered.end(), [](const PartitionBatch* a, const PartitionBatch* b) {
    return a->partition < b->partition;
  });
  return pool_->InTransaction([&](SqlConnection& c) {
    after->clear();
    std::map<uint32_t, PartitionCheckpoint> checkpoints;
    for (const PartitionBatch* b : ordered) {
      PartitionCheckpoint current;
      if (Status s = LockPartition(c, b->partition, &current); !s.ok()) return s;
      if (!(current == b->from)) {
        return Status(StatusCode::FAILED_PRECONDITION,
                      "partition " + std::to_string(b->partition) + " moved to " + current.last_id +
                          " (generation " + std::to_string(current.generation) +
                          ") while its writer read from " + b->from.last_id +
                          ": another writer holds it");
      }
      checkpoints[b->partition] = current;
    }
    std::vector<const LikeEvent*> applied;
    int changed = 0;
    if (Status s = ApplyEvents(c, events, horizon_version, &applied, &changed); !s.ok()) return s;
    // The feed in stream order: each event's place in its batch.
    std::map<const LikeEvent*, size_t> applied_set;
    for (const LikeEvent* e : applied) applied_set.emplace(e, 0);
    const int64_t now_ms = UnixMs();
    for (const PartitionBatch* b : ordered) {
      std::vector<const LikeEvent*> feed;
      for (const LikeEvent& e : b->events) {
        if (applied_set.count(&e) != 0) feed.push_back(&e);
      }
      PartitionCheckpoint& cp = checkpoints[b->partition];
      if (Status s = AppendToFeed(c, b->partition, cp.feed_seq + 1, feed, now_ms); !s.ok()) {
        return s;
      }
      for (const DeadLetter& d : b->dead) {
        if (Status s = AddDeadLetter(c, d, now_ms); !s.ok()) return s;
      }
      cp = {.generation = b->generation,
            .last_id = b->last_id,
            .feed_seq = cp.feed_seq + static_cast<int64_t>(feed.size())};
      if (Status s = SavePartition(c, b->partition, cp); !s.ok()) return s;
    }
    *after = std::move(checkpoints);
    return Status::Ok();
  });
}

Status LikeDatabase::SetLike(int64_t content_id, const std::string& user_id, uint32_t bucket,
                             uint32_t partition, bool liked, const std::string& request_id,
                             int64_t now_us, SetLikeResult* out) {
  return pool_->InTransaction([&](SqlConnection& c) {
    *out = SetLikeResult{.bucket = bucket};
    const PairKey key{content_id, user_id};
    std::map<PairKey, PairRow> rows;
    if (Status s = LockRows(c, {&key, 1}, &rows); !s.ok()) return s;
    const PairRow row = rows[key];
    const bool was_liked = row.exists && row.liked;
    out->version = row.version;
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
        if (row.exists) out->bucket = static_cast<uint32_t>(row.bucket);
        return ReadBucketCount(c, content_id, out);
      }
      if (Status s = c.Execute(
              "INSERT INTO like_request (content_id, user_id, request_id, liked, changed, "
              "created_ms) VALUES (?, ?, ?, ?, ?, ?)",
              {content_id, user_id, request_id, int64_t{liked ? 1 : 0},
               int64_t{was_liked != liked ? 1 : 0}, UnixMs()});
          !s.ok()) {
        return s;
      }
    }
    if (was_liked != liked) {
      out->changed = true;
      out->version = std::max(out->version + 1, now_us);
      // The count that moves: an unlike's is the bucket its like was counted in.
      const int64_t counted = CountedBucket(row.exists, true, liked, bucket, row.bucket);
      out->bucket = static_cast<uint32_t>(counted);
      const PairRow now{.exists = true, .liked = liked, .version = out->version, .bucket = counted};
      if (Status s = WriteRows(c, {{&key, now}}, row.exists); !s.ok()) return s;
      if (Status s = AddToCounts(c, {{{content_id, counted}, liked ? 1 : -1}}); !s.ok()) return s;
      if (Status s = c.Execute(
              "INSERT INTO like_outbox (part, content_id, user_id, liked, version, bucket, "
              "created_ms) VALUES (?, ?, ?, ?, ?, ?, ?)",
              {int64_t{partition}, content_id, user_id, int64_t{liked ? 1 : 0}, out->version,
               int64_t{bucket}, UnixMs()});
          !s.ok()) {
        return s;
      }
    }
    return ReadBucketCount(c, content_id, out);
  });
}

Status LikeDatabase::RepairCounts(int64_t content_id, uint32_t buckets, bool* changed) {
  return pool_->InTransaction([&](SqlConnection& c) {
    // The count rows first, each made (at 0) if missing and locked: a change that has not
    // moved its count row yet waits for this transaction and then moves it on top of the
    // repaired value, one that has is committed and in the read below.
    std::vector<SqlValue> touch;
    for (uint32_t b = 0; b < buckets; ++b)
      touch.insert(touch.end(), {content_id, int64_t{b}, int64_t{0}});
    if (buckets > 0) {
      if (Status s = c.Execute(AddToCountsSql(c.dialect(), buckets), touch); !s.ok()) return s;
    }
    std::vector<SqlRow> rows;
    if (Status s =
            c.Query(std::string("SELECT bucket, count FROM like_count WHERE content_id = ?") +
                        (c.dialect() == SqlDialect::kMariaDb ? " FOR UPDATE" : ""),
                    {content_id}, &rows);
        !s.ok()) {
      return s;
    }
    std::map<int64_t, int64_t> have;
    for (const SqlRow& row : rows) have[AsInt(row[0])] = AsInt(row[1]);
    // Not a locking read: a change waiting for the count rows holds its detail row, and is
    // not committed, so it is neither here nor in `have`.
    rows.clear();
    if (Status s = c.Query("SELECT bucket, COUNT(*) FROM like_state WHERE content_id = ? AND "
                           "liked = 1 GROUP BY bucket",
                           {content_id}, &rows);
        !s.ok()) {
      return s;
    }
    std::map<int64_t, int64_t> want;
    for (const SqlRow& row : rows) want[AsInt(row[0])] = AsInt(row[1]);
    CountDeltas deltas;
    for (const auto& [bucket, count] : want) deltas[{content_id, bucket}] += count;
    for (const auto& [bucket, count] : have) deltas[{content_id, bucket}] -= count;
    std::erase_if(deltas, [](const auto& entry) { return entry.second == 0; });
    *changed = !deltas.empty();
    return AddToCounts(c, deltas);
  });
}

Status LikeDatabase::RecordPartitions() {
  return pool_->InTransaction([&](SqlConnection& c) {
    std::vector<SqlRow> rows;
    if (Status s = c.Query("SELECT value FROM like_meta WHERE name = 'partitions'", {}, &rows);
        !s.ok()) {
      return s;
    }
    if (!rows.empty() && AsText(rows[0][0]) != std::to_string(partitions_)) {
      return Status(StatusCode::FAILED_PRECONDITION,
                    "the like database was laid out for " + AsText(rows[0][0]) +
                        " partitions, this provider's configuration says " +
                        std::to_string(partitions_) +
                        " (service.partitions must stay what it was when the data was made)");
    }
    if (rows.empty()) {
      if (Status s = c.Execute("INSERT INTO like_meta (name, value) VALUES ('partitions', ?)",
                               {std::to_string(partitions_)});
          !s.ok()) {
        return s;
      }
    }
    const std::string insert = c.dialect() == SqlDialect::kSqlite
                                   ? "INSERT OR IGNORE INTO like_partition "
                                   : "INSERT IGNORE INTO like_partition ";
    for (uint32_t from = 0; from < partitions_; from += 256) {
      const uint32_t n = std::min<uint32_t>(256, partitions_ - from);
      std::vector<SqlValue> params;
      for (uint32_t p = from; p < from + n; ++p) {
        params.insert(params.end(), {int64_t{p}, int64_t{0}, std::string("0-0"), int64_t{0}});
      }
      if (Status s = c.Execute(
              insert + "(part, generation, last_id, feed_seq) VALUES " + SqlPlaceholders(n, 4),
              params);
          !s.ok()) {
        return s;
      }
    }
    return Status::Ok();
  });
}

}  // namespace ferry::like
