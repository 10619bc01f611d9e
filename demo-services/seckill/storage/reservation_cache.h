#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ferry/codec/status.h"
#include "storage/request_scope.h"

namespace ferry::seckill {

enum class ReserveAnswer {
  kAccepted,  // a unit is reserved and the order event queued
  kSoldOut,
  kAlreadyJoined,  // the user reserved in this activity before
  kCacheMissing,   // the cache does not hold the activity (never preheated, or data lost)
  kLoading,        // a reload closed sales and is loading a new generation
  // The cache holds another generation of the activity's keys, a stale one, or one loaded
  // into a server state that is gone (restarted, restored, replaced by a replica).
  kOtherEpoch,
};

struct ReserveRequest {
  int64_t activity_id = 0;
  int64_t sku_id = 0;
  std::string user_id;
  std::string request_id;
  int64_t order_no = 0;  // the number the order will get if accepted
  int64_t now_ms = 0;
  int64_t cache_epoch = 0;  // the generation the database says the cache holds
};

struct ReserveResult {
  ReserveAnswer answer = ReserveAnswer::kAccepted;
  bool replayed = false;  // the request id was answered before; this is that answer
  int64_t order_no = 0;   // kAccepted: the order number reserved (the first one when replayed)
};

// One accepted reservation on the order queue.
struct ReservationEvent {
  std::string event_id;  // the queue's id, for Ack
  int64_t activity_id = 0;
  int64_t sku_id = 0;
  std::string user_id;
  std::string request_id;
  int64_t order_no = 0;
  int64_t reserved_ms = 0;
  // How often the queue has handed this entry out, this delivery included.
  int64_t deliveries = 1;
  // Why the entry is not a readable event (empty when it is). Such an entry keeps its id, and
  // user_id and request_id when it carries them, so its reservation can still be named.
  std::string malformed;
  int64_t cache_epoch = 0;  // the generation that accepted it (0: not recorded)
  int64_t cache_seq = 0;    // its sequence number in that generation (0: not recorded)
};

// Loads a cache generation (see ReservationCache::Preheat).
struct CacheLoad {
  int64_t activity_id = 0;
  int64_t sku_id = 0;
  int64_t epoch = 0;  // the new generation, > 0, which Fence closed the keys for
  // true: the keys are of this activity (an earlier generation): its recorded answers and its
  // order queue stay. false: whatever is there is deleted first.
  bool keep_requests = false;
  int64_t stock = 0;
  std::vector<std::string> buyers;
  std::vector<std::string> released_keys;  // releases the stock accounts for already
};

enum class ReleaseOutcome {
  kReleased,
  kAlreadyReleased,  // this release key gave its unit back before
  kNotCurrent,       // the cache does not hold generation `epoch` (missing, another or stale)
};

struct CacheSnapshot {
  bool present = false;  // false: the activity's keys are gone (never preheated or data lost)
  std::string marker;    // the loaded marker as stored ("" when missing)
  int64_t epoch = 0;     // the generation in the marker (0: none)
  // The generation no longer sells: marked stale, or loaded into a server state that is gone.
  bool stale = false;
  bool loading = false;          // a reload fenced the keys for generation `epoch`
  int64_t loading_since_ms = 0;  // loading: when (the fencing provider's clock)
  // The generation whose reservations and queue the keys hold: `epoch`, or for a loading
  // marker the one before the reload (0: none, or unreadable).
  int64_t data_epoch = 0;
  int64_t stock = 0;
  int64_t reservations = 0;   // accepted reservations recorded
  int64_t queue_pending = 0;  // delivered to a consumer, not acknowledged yet
  // Queued and not yet delivered to any consumer: exactly 0 when the consumers have read
  // everything; otherwise Redis's count (which can be high after Redis replayed its
  // append-only file), or at most 1000 counted when Redis cannot tell.
  int64_t queue_undelivered = 0;
};

// The fast path in front of the database: atomically checks participation, takes a unit and
// queues the order event; plus the queue the order writer drains. Every key of one
// activity+sku shares a hash tag.
class ReservationCache {
 public:
  virtual ~ReservationCache() = default;

  // The first step of a reload: closes sales of whatever generation the keys hold by setting
  // the marker to "loading:<epoch>", if it still is `expected_marker` (CacheSnapshot::marker);
  // *fenced is false, and nothing written, when another reload fenced first.
  virtual Status Fence(int64_t activity_id, int64_t sku_id, const std::string& expected_marker,
                       int64_t epoch, int64_t now_ms, bool* fenced) = 0;
  // Loads generation load.epoch (stock, participation set, releases accounted for) if the keys
  // are still fenced for it; otherwise writes nothing and *raced is true (another reload fenced
  // them meanwhile). The stock comes from the database only here.
  virtual Status Preheat(const CacheLoad& load, bool* raced) = 0;
  virtual Status Reserve(const ReserveRequest& request, ReserveResult* result) = 0;
  // Gives one unit back to generation `epoch`, once per `release_key` (an order number or "r:" +
  // RequestField); kNotCurrent when the cache holds no such generation.
  virtual Status Release(int64_t activity_id, int64_t sku_id, const std::string& release_key,
                         int64_t epoch, ReleaseOutcome* outcome) = 0;
  // Marks generation `epoch` stale (it lost reservations), closing it to purchases and releases
  // until a preheat loads a new one; *marked false when the marker was not `epoch`.
  virtual Status MarkStale(int64_t activity_id, int64_t sku_id, int64_t epoch, bool* marked) = 0;
  virtual Status Snapshot(int64_t activity_id, int64_t sku_id, CacheSnapshot* out) = 0;
  // Snapshot's marker and stock only (present, marker, epoch, stale, loading, data_epoch,
  // stock; the counts stay 0): one cheap round trip, for status pollers.
  virtual Status ReadStock(int64_t activity_id, int64_t sku_id, CacheSnapshot* out) = 0;
  // What the cache answered the request (replayed=true in *result), or *found=false when it
  // never saw it. Writes nothing.
  virtual Status FindRequest(const RequestScope& scope, bool* found, ReserveResult* result) = 0;
  // Every accepted reservation of the activity, for the reconciler.
  virtual Status ListReservations(int64_t activity_id, int64_t sku_id,
                                  std::vector<ReservationEvent>* out) = 0;
  // One page of them (about `count`), appended to *out, from *cursor ("" or "0": the start),
  // which becomes the next page's ("0" after the last). A reservation may come twice.
  virtual Status ScanReservations(int64_t activity_id, int64_t sku_id, std::string* cursor,
                                  int count, std::vector<ReservationEvent>* out) = 0;

  // The order queue, one per activity+sku, read through one consumer group.
  // New events for `consumer`; returns at once when there are none. Entries that are not
  // readable events come back too, with `malformed` set.
  virtual Status ReadEvents(int64_t activity_id, int64_t sku_id, const std::string& consumer,
                            int max_count, std::vector<ReservationEvent>* out) = 0;
  // Takes over events another consumer left unacknowledged for at least `min_idle_ms`.
  virtual Status ClaimStale(int64_t activity_id, int64_t sku_id, const std::string& consumer,
                            int64_t min_idle_ms, int max_count,
                            std::vector<ReservationEvent>* out) = 0;
  virtual Status Ack(int64_t activity_id, int64_t sku_id,
                     const std::vector<std::string>& event_ids) = 0;
  // Acknowledges the pending event and, in the same step, copies it to the activity's
  // dead-letter queue with `reason` and `detail` (the queue keeps its newest `max_letters`,
  // roughly). *moved is false, and nothing is written, when the event was not pending.
  virtual Status DeadLetter(int64_t activity_id, int64_t sku_id, const std::string& event_id,
                            const std::string& reason, const std::string& detail,
                            int64_t max_letters, bool* moved) = 0;
  // Removes the acknowledged entries from the front of the queue: those before the oldest
  // one still pending or not yet delivered. *removed counts them.
  virtual Status TrimAcknowledged(int64_t activity_id, int64_t sku_id, int64_t* removed) = 0;
  // Takes or renews the activity's re-drive lease for `holder` for `ttl_ms`; *held is false
  // while another holder's lease runs.
  virtual Status HoldRedriveLease(int64_t activity_id, int64_t sku_id, const std::string& holder,
                                  int64_t ttl_ms, bool* held) = 0;
  // Queues an existing reservation again (the reconciler's re-drive).
  virtual Status Requeue(const ReservationEvent& event) = 0;
  // Events delivered to a consumer and left unacknowledged for at least `min_idle_ms`, oldest
  // first, at most max_count (with their delivery counts).
  virtual Status ListIdle(int64_t activity_id, int64_t sku_id, int64_t min_idle_ms, int max_count,
                          std::vector<ReservationEvent>* out) = 0;

  // The Redis server the cache talks to now ("<run id>/<replication id>"; "" before the first
  // connection), recorded with each generation.
  virtual std::string ServerIdentity() const = 0;
  // Asks the server who it is through an open connection: a replica promoted in place keeps
  // its connections, so only this notices it. Generations loaded into an earlier state of the
  // data stop selling (their keys' generation changes).
  virtual Status CheckServer() = 0;
  // Called (on a Redis client thread, which it must not block) when a connection found the
  // server's data may have gone back: every generation it held needs a reload.
  virtual void OnServerChange(std::function<void()> listener) = 0;
};

}  // namespace ferry::seckill
