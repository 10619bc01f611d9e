#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "storage/order_store.h"

namespace ferry::seckill {

// What GetActivity answers, as one read of the activity and its stock found it.
struct ActivityStatus {
  bool found = false;  // false: no such activity (remembered like any other answer)
  ActivityRecord activity;
  int64_t remaining = -1;  // units the sale held at as_of_ms; -1: not known
  bool sold_out = false;   // none left, as the read or a later broadcast said
  int64_t epoch = 0;       // the cache generation read (0: embedded, or none)
  // Events on the activity's order queue not yet written (read only when back-pressure is on;
  // -1: not read).
  int64_t backlog = -1;
  int64_t as_of_ms = 0;
};

struct ActivityStatusOptions {
  // A polled activity is read again once its status is this old (status.refresh_ms).
  int64_t refresh_ms = 200;
  // Activities remembered at most; the least recently polled go first (status.max_activities).
  size_t max_entries = 10000;
  // One not polled for this long is dropped (status.idle_ms).
  int64_t idle_ms = 60000;
  // First reads of activities not remembered, per second at most (status.loads_per_s): past it
  // GetActivity answers UNAVAILABLE instead of asking the database, so that callers cycling
  // through more activities than are remembered cannot turn every call into a query.
  int64_t loads_per_s = 1000;
};

// Each provider's memory of activity statuses, so that pollers cost no database query and no
// Redis command per call. A status is read (Load) when first asked for, and again when asked
// for once it is refresh_ms old: by one caller at a time per activity, while the others get the
// status it replaces; callers of an activity never read wait for its one read. Activities
// nobody asks for are never read and are dropped. Ids above the highest the database holds
// (Ceiling, asked at most once per refresh_ms) are answered NOT_FOUND from memory, so random
// ids take neither memory nor queries.
class ActivityStatusBoard {
 public:
  // OK with found=false for an unknown activity; an error when it could not be read.
  using Load = std::function<Status(int64_t activity_id, ActivityStatus* out)>;
  using Ceiling = std::function<Status(int64_t* highest_activity_id)>;

  ActivityStatusBoard(ActivityStatusOptions options, Load load, Ceiling ceiling,
                      std::function<int64_t()> now_ms);

  // NOT_FOUND for an unknown activity.
  Status Get(int64_t activity_id, std::shared_ptr<const ActivityStatus>* out);

  // A provider found no unit left in generation `epoch`: ignored when this provider has read
  // another generation of the activity since (a message outlived its generation), and then
  // false.
  bool MarkSoldOut(int64_t activity_id, int64_t epoch);
  // Units came back: the flag goes, and a status that had none left is read again at its next
  // poll.
  void MarkReopened(int64_t activity_id);
  // The activity changed here (a preheat): its next poll reads it again.
  void Invalidate(int64_t activity_id);
  // An activity this provider created or opened: its id is known to exist.
  void Known(int64_t activity_id);
  // Messages may have been missed (the broadcast reconnected): every status is read again on
  // its next poll.
  void ExpireAll();

  size_t size() const;

 private:
  struct Entry {
    std::shared_ptr<const ActivityStatus> status;  // null until the first read succeeds
    int64_t refreshed_ms = 0;                      // last read attempted (0: due now)
    int64_t polled_ms = 0;
    bool reading = false;
    uint64_t signals = 0;  // broadcasts applied; a read that saw some arrive keeps their flag
    Status last_error;     // of the last read that failed before any succeeded
    std::list<int64_t>::iterator lru;
  };

  // True when `activity_id` may exist; reads the ceiling again when it is old.
  bool BelowCeiling(std::unique_lock<std::mutex>& lock, int64_t activity_id, int64_t now);
  bool TakeLoadToken(int64_t now);
  Entry& Insert(int64_t activity_id, int64_t now);
  // Reads the status as the entry's one reader (the lock released meanwhile).
  void Read(std::unique_lock<std::mutex>& lock, int64_t activity_id);

  const ActivityStatusOptions options_;
  const Load load_;
  const Ceiling ceiling_;
  const std::function<int64_t()> now_ms_;

  mutable std::mutex mu_;
  std::condition_variable read_done_;
  std::unordered_map<int64_t, Entry> entries_;
  std::list<int64_t> lru_;  // most recently polled first
  int64_t highest_ = 0;
  int64_t highest_read_ms_ = 0;  // 0: never read
  bool reading_ceiling_ = false;
  double load_tokens_ = 0;
  int64_t tokens_ms_ = 0;
};

}  // namespace ferry::seckill
