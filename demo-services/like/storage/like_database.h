#pragma once

#include <cstdint>
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
  uint32_t bucket = 0;  // the count row its like is (or was last) counted in
};

// How far the record has taken a partition's changes: every entry of the partition's stream up
// to `last_id`, in generation `generation` of its Redis keys; `feed_seq` is the partition's
// last change feed number.
struct PartitionCheckpoint {
  int64_t generation = 0;
  std::string last_id = "0-0";
  int64_t feed_seq = 0;
  bool operator==(const PartitionCheckpoint&) const = default;
};

// An entry the record keeps aside instead of applying, with why.
struct DeadLetter {
  LikeEvent event;
  std::string reason;
};

// What one partition's writer hands the record in one step.
struct PartitionBatch {
  uint32_t partition = 0;
  PartitionCheckpoint from;       // the checkpoint the writer read: anything else fences it out
  int64_t generation = 0;         // the generation of the entries
  std::string last_id;            // the last entry the batch covers
  std::vector<LikeEvent> events;  // in stream order
  std::vector<DeadLetter> dead;
};

// A change of the feed (every real change the record applied, per partition in order).
struct FeedChange {
  uint32_t partition = 0;
  int64_t seq = 0;
  int64_t content_id = 0;
  std::string user_id;
  bool liked = false;
  int64_t version = 0;
  int64_t created_ms = 0;
};

// One content as the record holds it, read in one snapshot.
struct ContentRecord {
  std::vector<LikeRow> rows;                            // every detail row, liked or not
  int64_t likes = 0;                                    // rows liked
  int64_t counted = 0;                                  // sum of the count rows
  std::map<uint32_t, PartitionCheckpoint> checkpoints;  // of the partitions asked for
  std::vector<LikeEvent> outbox;  // database-first changes of the content not relayed yet
};

// A user's deletion (every like undone) as requested and carried out.
struct UserDeletion {
  std::string user_id;
  int64_t requested_ms = 0;
  int64_t done_ms = 0;  // 0: not finished
  int64_t unliked = 0;
};

// The database of record (SQLite or MariaDB): a detail row per (content, user) with its state
// and version under the primary key, per-bucket count rows derived from them, the partitions'
// checkpoints and their change feed, an outbox of changes made database-first, and the dead
// letters of entries that could not be applied.
class LikeDatabase {
 public:
  // `partitions`: how many partitions the Redis keys are laid out in (1 on embedded).
  LikeDatabase(std::unique_ptr<storage::SqlConnectionPool> pool, uint32_t partitions)
      : pool_(std::move(pool)), partitions_(partitions) {}

  // Creates the tables if missing (and brings older ones up to date) and records the number of
  // partitions on first use: FAILED_PRECONDITION when another number was recorded.
  Status Initialize();
  uint32_t partitions() const { return partitions_; }
  storage::SqlConnectionPool* pool() { return pool_.get(); }

  // Applies each event only if its version is newer than the row's (the state flips and the
  // count row moves only on a real change), in one transaction; *applied and *changed count
  // the events that were newer and that flipped a state. An event for a pair without a row
  // older than `horizon_version` (its tombstone may have been dropped) is not applied.
  Status ApplyBatch(const std::vector<LikeEvent>& events, int* applied, int* changed,
                    int64_t horizon_version = 0);
  // The partitions' batches in one transaction: events applied as ApplyBatch does, each
  // applied one appended to its partition's feed in stream order, dead letters kept, and each
  // partition's checkpoint moved to the batch's end. FAILED_PRECONDITION when a partition's
  // checkpoint is not the one its writer read (another writer took it over): nothing is
  // written. *after gets the new checkpoints.
  Status ApplyPartitions(const std::vector<PartitionBatch>& batches, int64_t horizon_version,
                         std::map<uint32_t, PartitionCheckpoint>* after);
  Status Checkpoint(uint32_t partition, PartitionCheckpoint* out);

  // Database-first: in one transaction, sets the state with a new version (above the row's
  // and `now_us`), moves the bucket's count row and appends the change to the outbox of its
  // partition, only if the state really changes; a request id is remembered with it.
  Status SetLike(int64_t content_id, const std::string& user_id, uint32_t bucket,
                 uint32_t partition, bool liked, const std::string& request_id, int64_t now_us,
                 SetLikeResult* out);
  // The oldest outbox rows of a partition, as events whose entry_id is the row's id.
  Status ReadOutbox(uint32_t partition, uint32_t limit, std::vector<LikeEvent>* out);
  Status CountOutbox(int64_t* out);
  // Relayed outbox rows: deleted, and appended to the partition's feed, in one transaction;
  // FAILED_PRECONDITION, writing nothing, when another relay moved some of them first.
  Status RelayDone(uint32_t partition, const std::vector<LikeEvent>& relayed);

  // The feed: a partition's changes after `after_seq`, at most `limit`, in order.
  Status ListChanges(uint32_t partition, int64_t after_seq, uint32_t limit,
                     std::vector<FeedChange>* out);
  // Feed rows older than `before_ms`, at most `limit` of them, deleted.
  Status TrimFeed(int64_t before_ms, uint32_t limit, int64_t* deleted);
  // Contents with a change in the feed since `since_ms`, at most `limit`.
  Status RecentlyChanged(int64_t since_ms, uint32_t limit, std::vector<int64_t>* out);

  // The count rows of each content: bucket -> count (no entry for a content without any).
  Status CountRows(std::span<const int64_t> content_ids,
                   std::map<int64_t, std::map<uint32_t, int64_t>>* out);
  // Every detail row of the contents, liked or not (versions are a bucket's baseline).
  Status ContentRows(std::span<const int64_t> content_ids,
                     std::map<int64_t, std::vector<LikeRow>>* out);
  Status HasLiked(const std::string& user_id, std::span<const int64_t> content_ids,
                  std::vector<bool>* out);
  // Users who like the content, newest first, after (`after_version`, `after_user`) of the
  // previous page (exclusive; version 0: from the start), at most `limit`; with versions.
  Status ListLikers(int64_t content_id, int64_t after_version, const std::string& after_user,
                    uint32_t limit, std::vector<std::pair<std::string, int64_t>>* out);
  // Contents the user likes, newest first, likewise.
  Status ListLiked(const std::string& user_id, int64_t after_version, int64_t after_content,
                   uint32_t limit, std::vector<std::pair<int64_t, int64_t>>* out);

  // The content's rows, counts, the asked partitions' checkpoints and unrelayed outbox rows,
  // in one snapshot (what reconciliation compares Redis with).
  Status ContentSnapshot(int64_t content_id, std::span<const uint32_t> partitions,
                         ContentRecord* out);
  // Contents with count rows after `after` (exclusive), ascending, at most `limit`.
  Status CountedContents(int64_t after, uint32_t limit, std::vector<int64_t>* out);
  // Rewrites the content's count rows from its detail rows (by the bucket each like is counted
  // in) under the count rows' locks, so that no concurrent change's move is lost: *changed
  // tells whether any differed. `buckets`: the layout, whose count rows are locked (made) too.
  Status RepairCounts(int64_t content_id, uint32_t buckets, bool* changed);
  // The content's unliked rows older than `before_version`, deleted.
  Status TrimTombstones(int64_t content_id, int64_t before_version, int64_t* deleted);

  // The bucket counts contents were raised to (like_layout).
  Status Layouts(std::map<int64_t, uint32_t>* out);
  Status Layout(int64_t content_id, uint32_t* buckets);  // 0: never raised
  // The raised layouts of those of the contents that were raised.
  Status LayoutsOf(std::span<const int64_t> content_ids, std::map<int64_t, uint32_t>* out);
  // Records that the content now has `buckets` buckets (never lowers a recorded count).
  Status RecordLayout(int64_t content_id, uint32_t buckets);

  Status CountDeadLetters(int64_t* out);
  // The oldest dead letters, at most `limit`; with `never_redriven`, only those not re-driven
  // before (what the reconciler re-drives on its own).
  Status ListDeadLetters(uint32_t limit, bool never_redriven, std::vector<DeadLetter>* out);
  Status DeleteDeadLetter(const LikeEvent& event);
  // Request ids remembered before `before_ms`, at most `limit`, forgotten.
  Status TrimRequests(int64_t before_ms, uint32_t limit, int64_t* deleted);

  // Records a request to delete the user's likes (once; later calls read it).
  Status RequestUserDeletion(const std::string& user_id, int64_t now_ms, UserDeletion* out);
  Status PendingUserDeletions(uint32_t limit, std::vector<UserDeletion>* out);
  // Records how many likes it undid so far and, with `done_ms` > 0, that it is done (the
  // user's dead letters dropped with it).
  Status UpdateUserDeletion(const std::string& user_id, int64_t unliked, int64_t done_ms);

 private:
  // Records the number of partitions, or refuses another, and makes their rows.
  Status RecordPartitions();

  std::unique_ptr<storage::SqlConnectionPool> pool_;
  const uint32_t partitions_;
};

// Pools for the two databases, as the provider opens them.
std::unique_ptr<storage::SqlConnectionPool> SqliteLikePool(const std::string& path,
                                                           uint32_t connections);
std::unique_ptr<storage::SqlConnectionPool> MariaDbLikePool(storage::MariaDbOptions options,
                                                            uint32_t connections);

}  // namespace ferry::like
