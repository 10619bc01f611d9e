#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>

#include "ferry/storage/redis_connection_pool.h"
#include "ferry/storage/redis_generation.h"
#include "ferry/storage/redis_script_set.h"
#include "storage/bucket_layout.h"
#include "storage/empty_contents.h"
#include "storage/like_database.h"
#include "storage/like_event.h"
#include "storage/like_store.h"
#include "storage/redis_like_keys.h"

namespace ferry::like {

struct RedisLikeOptions {
  uint32_t partitions = 64;
  int64_t request_ttl_ms = 120000;  // request ids remembered at least this long (0: not at all)
  int64_t max_backlog = 200000;     // a partition's changes not yet trimmed, then SetLike refuses
  int64_t empty_ttl_ms = 60000;     // an empty bucket's marker expires after this
  int64_t empty_cache_ms = 10000;   // EmptyContents' ttl
  size_t empty_cache_entries = 100000;
  // Redis-first: the record changes only through the partitions' streams, whose changes are of
  // loaded buckets. So a bucket missing its marker, of a content Redis holds other buckets of
  // in this generation, is empty (its marker expired with nothing in it): read as such, with
  // no load and no record. Database-first commits to the record first: such a bucket is loaded.
  bool changes_through_streams = true;
};

// A bucket as reconciliation sees it (RedisLikeStore::Snapshot).
struct BucketSnapshot {
  bool loaded = false;  // in this generation
  std::string layout;   // the marker's layout when loaded
  int64_t generation = 0;
  int64_t count = 0;
  std::map<std::string, bool> members;      // user -> true
  std::map<std::string, int64_t> versions;  // user -> version (tombstones included)
  std::vector<LikeEvent> pending;           // the bucket's changes after the checkpoint, in order
  bool truncated = false;                   // more than the read limit followed the checkpoint
};

// How ApplyRecord judges the record's version against Redis's.
enum class ApplyMode {
  kNewer,  // only a newer version
  kTie,    // also the same version (Redis's state at that version is wrong)
  kForce,  // whatever Redis holds (database-first: the record is the truth)
};

// The layout a bucket's marker names: "4", or "m:8" while it moves to 8 buckets.
struct MarkerLayout {
  uint32_t buckets = 0;
  bool moving = false;
};
bool ParseMarkerLayout(std::string_view text, MarkerLayout* out);

// Redis-first: the bucket's membership, count, version and stream entry change in one script;
// the partition's event writer carries each entry to the database afterwards. A bucket Redis
// does not hold in its partition's generation (first use, Redis restarted, restored from an
// older copy, a promoted replica) is loaded from the database before a write uses it, merged
// with what Redis still held of it. A read of a content Redis holds nothing of asks the record
// for its count: nobody liked it, and nothing is made (an in-process note keeps the record from
// being asked again for a while); else the content is loaded as a write would.
class RedisLikeStore final : public LikeStore {
 public:
  // `pool`, `database`, `layout` and `generation` must outlive the store.
  RedisLikeStore(storage::RedisConnectionPool* pool, LikeDatabase* database, BucketLayout* layout,
                 storage::RedisGeneration* generation, RedisLikeOptions options);

  // Loads the scripts (UNAVAILABLE when Redis is unreachable).
  Status Connect();

  Status SetLike(int64_t content_id, const std::string& user_id, bool liked,
                 const std::string& request_id, SetLikeResult* out) override;
  using AsyncOutcome = storage::RedisScriptSet::AsyncOutcome;
  using SetLikeDone =
      std::function<void(AsyncOutcome outcome, const Status& status, const SetLikeResult& result)>;
  // SetLike without waiting, for the usual case (the bucket is loaded in the layout this
  // provider uses): `done` runs on the Redis pool's asynchronous thread, so it must not block,
  // with kAnswered and the result, kFailed and what SetLike would return, or kNotRun when the
  // call needs what only SetLike does (load the bucket, follow a raise, check the generation,
  // reload the script): nothing changed, so the caller runs SetLike. False, with `done` not
  // called: run SetLike.
  bool SetLikeAsync(int64_t content_id, const std::string& user_id, bool liked,
                    const std::string& request_id, SetLikeDone done);
  Status Counts(std::span<const int64_t> content_ids, std::vector<ContentCounts>* out) override;
  Status HasLiked(const std::string& user_id, std::span<const int64_t> content_ids,
                  std::vector<bool>* out) override;
  // Doubles the content's buckets while writers run (redis_bucket_split.cc): bucket k at a
  // time is frozen (its writers wait; readers go on), the record catches up with its changes,
  // the users that hash to k + n move there with their versions and request ids, and k keeps
  // the rest; then the database records the new count for every provider. Safe to run twice
  // at once and to resume after a crash half way.
  Status RaiseBuckets(int64_t content_id, uint32_t buckets) override;

  // Loads every bucket of the contents' layouts that Redis does not hold in this generation,
  // from one read of their rows, in one pipeline.
  Status LoadContents(std::span<const int64_t> content_ids);
  Status LoadContent(int64_t content_id);

  // Reconciliation (redis_like_repair.cc): one bucket and its pending changes after
  // `after_id`, read at one instant.
  Status Snapshot(int64_t content_id, uint32_t bucket, const std::string& after_id,
                  BucketSnapshot* out);
  // The record's state of a pair into its bucket, as `mode` allows; nothing when the bucket is
  // not loaded (its load reads the record).
  Status ApplyRecord(int64_t content_id, uint32_t bucket, const LikeEvent& record, ApplyMode mode);
  // A pair's change appended again to its partition's stream (a lost event), if the pair is
  // still at `version`.
  Status Reappend(int64_t content_id, uint32_t bucket, const std::string& user_id, int64_t version);
  // The bucket's count set to its set's size; *before gets what it was.
  Status FixCount(int64_t content_id, uint32_t bucket, int64_t* before);
  // Deletes the bucket if the stream holds no change of the content after `after_id`;
  // *deleted tells whether it did.
  Status Unload(int64_t content_id, uint32_t bucket, const std::string& after_id, bool* deleted);


  // RedisGeneration::Check: after a script found its generation key missing.
  Status CheckGeneration();
  // The calls in one pipeline; if a script found its generation key missing (-6: a flush),
  // the server is checked and the calls made again, once. Error replies are errors here.
  Status EvalInGeneration(const std::vector<storage::RedisScriptSet::Call>& calls,
                          std::vector<storage::RedisReplyPtr>* replies);

  storage::RedisConnectionPool& pool() { return *pool_; }
  storage::RedisScriptSet& scripts() { return scripts_; }
  uint32_t partitions() const { return options_.partitions; }
  BucketKeys KeysOf(int64_t content_id, uint32_t bucket) const {
    return BucketKeys::For(content_id, bucket, options_.partitions);
  }

 private:
  // The set_like script's keys and arguments for the pair, in `layout`.
  struct ScriptCall {
    int64_t content_id;
    uint32_t layout;
    uint32_t bucket;
    uint32_t partition = 0;
    std::vector<std::string> keys;
    std::vector<std::string> args;
  };
  ScriptCall MakeScriptCall(int64_t content_id, const std::string& user_id, bool liked,
                            const std::string& request_id, uint32_t layout) const;
  // The script's answer: OK with *out (and *code >= 0) for a change, a repeat or a replay;
  // OK with *code < 0 for SetLike to handle (-3 with *marker the bucket's layout); or the
  // error (a request id reused for the other state, a backlog full, a malformed reply).
  Status ReadAnswer(const redisReply* reply, const ScriptCall& call, bool liked,
                    const std::string& request_id, SetLikeResult* out, int64_t* code,
                    std::string* marker);
  // The layout the database records, adopted (at most once a second per content).
  void RefreshLayout(int64_t content_id);
  // The bucket's marker and its partition's generation, as text ("" when missing).
  Status Marker(int64_t content_id, uint32_t bucket, std::string* marker, std::string* generation);
  // The count of bucket `bucket` of `layout` that a raise moved on: its own and its new
  // neighbour's, followed through later raises.
  Status SplitCount(int64_t content_id, uint32_t bucket, uint32_t layout, int64_t* count);
  // The contents, which Redis holds no bucket of: those the record has likes of are loaded
  // (*loaded), the others remembered as empty for a while.
  Status LoadLiked(std::span<const int64_t> content_ids, std::vector<bool>* loaded);
  // For each content a bucket of which Redis holds in a layout other than the provider's: that
  // layout.
  Status CheckLoadedLayouts(std::span<const int64_t> content_ids,
                            std::map<int64_t, uint32_t>* other);
  // Of `missing` (indices of content_ids whose user's bucket has no marker): those only, whose
  // contents Redis holds no other bucket of either (changes_through_streams; else all stay).
  Status EmptyBuckets(std::span<const int64_t> content_ids, const std::vector<uint32_t>& layouts,
                      std::vector<size_t>* missing);
  // Moves the users of bucket k that hash to k + n (one step of RaiseBuckets).
  Status SplitBucket(int64_t content_id, uint32_t k, uint32_t n);
  // Waits until the record holds the partition's changes up to `last_id`.
  Status AwaitRecord(uint32_t partition, const std::string& last_id);

  storage::RedisConnectionPool* const pool_;
  LikeDatabase* const database_;
  BucketLayout* const layout_;
  storage::RedisGeneration* const generation_;
  const RedisLikeOptions options_;
  storage::RedisScriptSet scripts_;
  EmptyContents empty_;
  std::mutex refresh_mu_;
  std::map<int64_t, std::chrono::steady_clock::time_point> refreshed_;  // guarded by refresh_mu_
};

// Milliseconds since `since` (the stores' waits on a raise in progress).
int64_t ElapsedMs(std::chrono::steady_clock::time_point since);

}  // namespace ferry::like
