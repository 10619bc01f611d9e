#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ferry/codec/status.h"
#include "ferry/storage/mariadb_connection.h"
#include "ferry/storage/sql_connection_pool.h"
#include "storage/bucket_layout.h"
#include "storage/like_event.h"
#include "storage/like_store.h"

namespace ferry::like {

// One (content, user) detail row.
struct LikeRow {
  std::string user_id;
  bool liked = false;
  int64_t version = 0;
};

// The four numbers reconciliation compares for one content, as the database holds them.
struct DatabaseCounts {
  int64_t likes = 0;    // detail rows with liked = 1
  int64_t counted = 0;  // sum of the per-bucket count rows
  int64_t outbox = 0;   // outbox rows (database-first changes not yet relayed)
};

// The database of record (SQLite or MariaDB): a detail row per (content, user) with its state
// and version under the primary key, per-bucket count rows derived from them, an outbox of
// changes made database-first, and the dead letters of events that kept failing.
class LikeDatabase {
 public:
  explicit LikeDatabase(std::unique_ptr<storage::SqlConnectionPool> pool)
      : pool_(std::move(pool)) {}

  // Creates the tables if missing.
  Status Initialize();

  // Applies `event` only if its version is newer than the row's: *applied tells whether it
  // was, *changed whether the state flipped (and its bucket's count row moved by one), both in
  // one transaction. A stale or repeated event changes nothing.
  Status Apply(const LikeEvent& event, bool* applied, bool* changed);
  // Applies a batch in one transaction (one commit, however many events), with the outcome of
  // Apply on each in version order: *applied and *changed count the events that were newer and
  // that flipped a state.
  Status ApplyBatch(const std::vector<LikeEvent>& events, int* applied, int* changed);

  // Database-first: in one transaction, sets the state with a new version (greater than the
  // row's and than `now_us`'s predecessors), moves the bucket's count row and appends the
  // change to the outbox, only if the state really changes.
  Status SetLike(int64_t content_id, const std::string& user_id, uint32_t bucket, bool liked,
                 const std::string& request_id, int64_t now_us, SetLikeResult* out);

  Status BucketCounts(int64_t content_id, uint32_t buckets, std::vector<int64_t>* out);
  Status HasLiked(const std::string& user_id, std::span<const int64_t> content_ids,
                  std::vector<bool>* out);
  // Users who like the content, ascending, after `after_user` (exclusive), at most `limit`.
  Status ListLikers(int64_t content_id, const std::string& after_user, uint32_t limit,
                    std::vector<std::string>* out);
  Status ListLiked(const std::string& user_id, int64_t after_content, uint32_t limit,
                   std::vector<int64_t>* out);

  // Contents that have count rows (what the periodic reconciler looks at).
  Status CountedContents(std::vector<int64_t>* out);
  // Every detail row of one bucket of `buckets` (liked or not: the versions are the bucket's
  // baseline).
  Status BucketRows(int64_t content_id, uint32_t bucket, uint32_t buckets,
                    std::vector<LikeRow>* out);

  // The bucket counts contents were raised to (like_layout).
  Status Layouts(std::map<int64_t, uint32_t>* out);
  Status Layout(int64_t content_id, uint32_t* buckets);  // 0: never raised
  // Records that the content now has `buckets` buckets (never lowers a recorded count).
  Status RecordLayout(int64_t content_id, uint32_t buckets);
  // Detail rows, count rows and outbox of one content, read in one snapshot.
  Status Counts(int64_t content_id, DatabaseCounts* out);
  // Rewrites the content's count rows (and the detail rows' buckets) from its detail rows,
  // under `layout`. *changed: whether any count row differed.
  Status RepairCounts(int64_t content_id, const BucketLayout& layout, bool* changed);

  // Keeps an event that could not be applied, with why, and drops it from the stream's way.
  Status AddDeadLetter(const LikeEvent& event, const std::string& reason);
  Status CountDeadLetters(int64_t* out);
  // The oldest outbox rows (database-first changes), at most `limit`, as events whose
  // entry_id is the row's id; DeleteOutbox removes relayed ones.
  Status ReadOutbox(uint32_t limit, std::vector<LikeEvent>* out);
  Status DeleteOutbox(const std::vector<LikeEvent>& relayed);
  // Outbox rows older than `before_ms`, deleted; the number deleted in *deleted.
  Status TrimOutbox(int64_t before_ms, int64_t* deleted);
  // Request ids remembered before `before_ms`, forgotten.
  Status TrimRequests(int64_t before_ms, int64_t* deleted);

 private:
  std::unique_ptr<storage::SqlConnectionPool> pool_;
};

// Pools for the two databases, as the provider opens them.
std::unique_ptr<storage::SqlConnectionPool> SqliteLikePool(const std::string& path,
                                                           uint32_t connections);
std::unique_ptr<storage::SqlConnectionPool> MariaDbLikePool(storage::MariaDbOptions options,
                                                            uint32_t connections);

}  // namespace ferry::like
