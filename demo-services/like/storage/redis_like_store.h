#pragma once

#include <chrono>
#include <functional>
#include <memory>

#include "ferry/storage/redis_connection_pool.h"
#include "ferry/storage/redis_script_set.h"
#include "storage/appended_streams.h"
#include "storage/bucket_layout.h"
#include "storage/like_database.h"
#include "storage/like_event.h"
#include "storage/like_store.h"

namespace ferry::like {

// What Redis holds of one content, summed over its buckets.
struct CacheCounts {
  int64_t count = 0;    // the count strings
  int64_t members = 0;  // the membership sets' sizes
  int64_t pending = 0;  // stream entries not yet persisted
};

// Redis-first: the bucket's membership, count, version and stream entry change in one script;
// the event writers carry each entry to the database afterwards. A bucket Redis does not hold
// (first use, or Redis restarted empty) is loaded from the database before it is used, with
// the rows' versions as its baseline.
class RedisLikeStore final : public LikeStore {
 public:
  // `pool`, `database`, `layout` and `appended` must outlive the store. Request ids are
  // remembered for `request_ttl_ms` (0: not at all). Each stream a change is appended to is
  // noted in `appended`, for this process's event writers.
  RedisLikeStore(storage::RedisConnectionPool* pool, LikeDatabase* database, BucketLayout* layout,
                 int64_t request_ttl_ms, AppendedStreams* appended);

  // Loads the scripts (UNAVAILABLE when Redis is unreachable).
  Status Connect();

  Status SetLike(int64_t content_id, const std::string& user_id, bool liked,
                 const std::string& request_id, SetLikeResult* out) override;
  using AsyncOutcome = storage::RedisScriptSet::AsyncOutcome;
  using SetLikeDone =
      std::function<void(AsyncOutcome outcome, const Status& status, const SetLikeResult& result)>;
  // SetLike without waiting, for the usual case (the bucket is loaded, with the layout this
  // provider uses): `done` runs on the Redis pool's asynchronous thread, so it must not block,
  // with kAnswered and the result, kFailed and what SetLike would return, or kNotRun when the
  // call needs what only SetLike does (load the bucket, follow a raise, reload the script):
  // nothing changed, so the caller runs SetLike. False, with `done` not called: run SetLike.
  bool SetLikeAsync(int64_t content_id, const std::string& user_id, bool liked,
                    const std::string& request_id, SetLikeDone done);
  Status BucketCounts(int64_t content_id, std::vector<int64_t>* out) override;
  Status HasLiked(const std::string& user_id, std::span<const int64_t> content_ids,
                  std::vector<bool>* out) override;
  // Doubles the content's buckets while writers run (redis_bucket_split.cc): bucket k at a
  // time is frozen (its writers wait), the users that hash to k + n move there with their
  // versions, and k keeps the rest; then the database records the new count for every
  // provider. Safe to run twice at once and to resume after a crash half way.
  Status RaiseBuckets(int64_t content_id, uint32_t buckets) override;

  Status ReadCacheCounts(int64_t content_id, CacheCounts* out);
  // Loads the bucket (of the content's current layout) from the database: only if Redis does
  // not hold it, or (`force`, a repair) replacing what it holds; versions never go down.
  Status LoadBucket(int64_t content_id, uint32_t bucket, bool force);
  // Database-first: brings a committed change (an outbox row) into its bucket if newer than
  // what the bucket holds. A bucket Redis does not hold is loaded from the database, which
  // already has the change.
  Status ApplyChange(const LikeEvent& change);

 private:
  // The set_like script's keys and arguments for the pair, under the current layout.
  struct ScriptCall {
    uint32_t buckets;
    uint32_t bucket;
    std::string events;  // the bucket's stream
    std::vector<std::string> keys;
    std::vector<std::string> args;
  };
  ScriptCall MakeScriptCall(int64_t content_id, const std::string& user_id, bool liked,
                            const std::string& request_id) const;
  // The script's answer: OK with *out (and *code >= 0) for a change, a repeat or a replay;
  // OK with *code -1 (the bucket is not loaded) or -3 (it has another layout), for SetLike to
  // handle; or the error (a request id reused for the other state, a malformed reply).
  Status ReadAnswer(const redisReply* reply, const ScriptCall& call, bool liked,
                    const std::string& request_id, SetLikeResult* out, int64_t* code);
  // A bucket whose ready marker is not `buckets` (the layout this provider used): learns a
  // raise from the database, waits for a raise in progress (resuming it when it stalls), and
  // refuses a layout that shrank without a repair. OK: try again with the current layout.
  Status AwaitLayout(int64_t content_id, uint32_t buckets, const std::string& marker,
                     int64_t waited_ms);
  // A bucket Redis does not hold, loaded unless Redis holds the content for another layout.
  Status LoadMissing(int64_t content_id, uint32_t bucket, uint32_t buckets, int64_t waited_ms);
  Status LoadBucketOf(int64_t content_id, uint32_t bucket, uint32_t buckets, bool force);
  Status ReadyMarker(int64_t content_id, uint32_t bucket, std::string* marker);
  Status RegisterStream(const std::string& stream);
  // Moves the users of bucket k that hash to k + buckets (one step of RaiseBuckets).
  Status SplitBucket(int64_t content_id, uint32_t k, uint32_t buckets);

  storage::RedisConnectionPool* const pool_;
  LikeDatabase* const database_;
  BucketLayout* const layout_;
  const int64_t request_ttl_ms_;
  AppendedStreams* const appended_;
  storage::RedisScriptSet scripts_;
};

// Milliseconds since `since` (the stores' waits on a raise in progress).
int64_t ElapsedMs(std::chrono::steady_clock::time_point since);

}  // namespace ferry::like
