#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_set>
#include <vector>

#include "ferry/storage/redis_connection_pool.h"
#include "ferry/storage/redis_generation.h"
#include "ferry/storage/redis_script_set.h"
#include "storage/reservation_cache.h"

namespace ferry::seckill {

// ReservationCache over Redis (7.0 or later: XAUTOCLAIM's three-element reply), through a pool
// of blocking hiredis connections; safe to call from many threads. The key layout is in
// redis_keys.h, the scripts' contracts in redis_scripts.h.
//
// Statuses:
//   UNAVAILABLE       Redis unreachable, a connection broke or timed out, no pooled connection
//                     came free within timeout_ms, or Redis answered with a transient error
//                     (LOADING, BUSY, MASTERDOWN, READONLY, TRYAGAIN, CLUSTERDOWN). Retry later;
//                     Reserve is safe to retry with the same request id.
//   INVALID_ARGUMENT  refused before reaching Redis (empty user or request id, negative stock,
//                     max_count < 1, ...).
//   INTERNAL          any other Redis error reply, with its message: e.g. a key of the wrong type
//                     or a stock that is not an integer (the script wrote nothing), or a reply
//                     of an unexpected shape.
//
// The order queue is the stream `seckill:{A:S}:orders` read through consumer group
// "order-writers", which Preheat creates. When the group is missing (e.g. a Requeue created the
// stream after Redis lost its data), ReadEvents recreates it at id 0 on an existing stream and
// reads again; with no stream at all there are no events and it returns none with OK.
// ClaimStale and Ack likewise treat a missing group as "nothing pending". Entries of the
// stream that do not parse as events (written by something else, or damaged) are returned with
// `malformed` set, for the caller to dead-letter. ClaimStale reads each claimed entry's
// delivery count (XPENDING); ReadEvents' entries are on their first delivery.
// The dead-letter queue is the stream `seckill:{A:S}:dead_letters`; the re-drive lease the
// string `seckill:{A:S}:redrive_lease` (SET PX by script, compare-and-renew).
class RedisReservationCache : public ReservationCache {
 public:
  explicit RedisReservationCache(storage::RedisOptions options);

  // Opens a connection and loads the scripts (SCRIPT LOAD). Optional: a script not loaded yet
  // is loaded on first use, and again after NOSCRIPT (a restarted Redis). UNAVAILABLE when Redis
  // is unreachable.
  Status LoadScripts();

  Status Fence(int64_t activity_id, int64_t sku_id, const std::string& expected_marker,
               int64_t epoch, int64_t now_ms, bool* fenced) override;
  Status Preheat(const CacheLoad& load, bool* raced) override;
  Status Reserve(const ReserveRequest& request, ReserveResult* result) override;
  Status Release(int64_t activity_id, int64_t sku_id, const std::string& release_key, int64_t epoch,
                 ReleaseOutcome* outcome) override;
  Status MarkStale(int64_t activity_id, int64_t sku_id, int64_t epoch, bool* marked) override;
  // A consistent view (one MULTI/EXEC). present needs both the loaded marker and the stock.
  Status Snapshot(int64_t activity_id, int64_t sku_id, CacheSnapshot* out) override;
  // GET of the marker and the stock, HGET of the generation, in one MULTI/EXEC.
  Status ReadStock(int64_t activity_id, int64_t sku_id, CacheSnapshot* out) override;
  // HGET of the requests hash; writes nothing. A kCacheMissing answer is never recorded, so
  // such a request is not found.
  Status FindRequest(const RequestScope& scope, bool* found, ReserveResult* result) override;
  // Replaces *out with every "A:" answer of the requests hash (paged with HSCAN), ordered by
  // order_no; event_id is empty (these are not queue entries).
  Status ListReservations(int64_t activity_id, int64_t sku_id,
                          std::vector<ReservationEvent>* out) override;
  Status ScanReservations(int64_t activity_id, int64_t sku_id, std::string* cursor, int count,
                          std::vector<ReservationEvent>* out) override;
  // Replace *out.
  Status ReadEvents(int64_t activity_id, int64_t sku_id, const std::string& consumer, int max_count,
                    std::vector<ReservationEvent>* out) override;
  Status ClaimStale(int64_t activity_id, int64_t sku_id, const std::string& consumer,
                    int64_t min_idle_ms, int max_count,
                    std::vector<ReservationEvent>* out) override;
  Status Ack(int64_t activity_id, int64_t sku_id,
             const std::vector<std::string>& event_ids) override;
  Status DeadLetter(int64_t activity_id, int64_t sku_id, const std::string& event_id,
                    const std::string& reason, const std::string& detail, int64_t max_letters,
                    bool* moved) override;
  Status TrimAcknowledged(int64_t activity_id, int64_t sku_id, int64_t* removed) override;
  Status HoldRedriveLease(int64_t activity_id, int64_t sku_id, const std::string& holder,
                          int64_t ttl_ms, bool* held) override;
  Status Requeue(const ReservationEvent& event) override;
  // XPENDING ... IDLE, then the entries themselves (XRANGE), in one pipeline each.
  Status ListIdle(int64_t activity_id, int64_t sku_id, int64_t min_idle_ms, int max_count,
                  std::vector<ReservationEvent>* out) override;

  std::string ServerIdentity() const override;
  Status CheckServer() override;
  void OnServerChange(std::function<void()> listener) override;

 private:
  // Indices into scripts_, in the order the constructor hands the scripts over.
  enum ScriptId { kReserve, kPreheat, kRelease, kMarkStale, kDeadLetter, kTrim, kLease, kFence };

  // Adds the activity's generation key to those every connection checks (and checks it now)
  // before the first command of the activity; once per activity.
  Status Watch(int64_t activity_id, int64_t sku_id);
  // The activity's marker, generation and stock, and the replies to `more` after them
  // ((*exec)->element[3...]), in one MULTI.
  Status ReadState(int64_t activity_id, int64_t sku_id, std::vector<std::vector<std::string>> more,
                   CacheSnapshot* out, std::vector<storage::RedisReplyPtr>* replies,
                   const redisReply** exec);
  // Replaces set `key` by `members`, in chunks.
  Status Stage(const std::string& key, const std::vector<std::string>& members);

  // Sets each event's delivery count from the group's pending list.
  Status ReadDeliveries(const std::string& stream, std::vector<ReservationEvent>* events);

  // Runs a command; an error reply becomes a status.
  Status Command(const std::vector<std::string>& args, storage::RedisReplyPtr* reply);
  // XGROUP CREATE at id 0 on an existing stream; *stream_exists false when there is none.
  Status RecreateGroup(const std::string& stream, bool* stream_exists);

  storage::RedisConnectionPool pool_;
  storage::RedisScriptSet scripts_;
  storage::RedisGeneration generation_;
  std::shared_mutex watched_mu_;
  std::unordered_set<std::string> watched_;  // generation keys added to generation_
  std::mutex listener_mu_;
  std::function<void()> server_change_;
};

// Connects once and loads the scripts; UNAVAILABLE with the address and the cause when Redis is
// unreachable.
Status ConnectRedisReservationCache(const storage::RedisOptions& options,
                                    std::unique_ptr<ReservationCache>* out);

}  // namespace ferry::seckill
