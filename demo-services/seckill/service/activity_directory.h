#pragma once

#include <cstdint>
#include <functional>
#include <shared_mutex>
#include <unordered_map>

#include "storage/order_store.h"

namespace ferry::seckill {

// The provider's local copy of activities, preloaded by Preheat, so that a purchase reads the
// sale's window from memory rather than from the database. Open activities never change and
// stay; a closed or unknown one is looked up again after `recheck_ms`, since another provider
// may open it. A closed one whose start time has passed is looked up again after
// `started_recheck_ms` instead: it is the copy that predates a preheat on another provider, and
// every purchase it answers NOT_STARTED meanwhile is a buyer wrongly turned away.
class ActivityDirectory {
 public:
  ActivityDirectory(OrderStore* store, std::function<int64_t()> now_ms, int64_t recheck_ms = 500,
                    int64_t started_recheck_ms = 20)
      : store_(store),
        now_ms_(std::move(now_ms)),
        recheck_ms_(recheck_ms),
        started_recheck_ms_(started_recheck_ms) {}

  // NOT_FOUND for an unknown activity; store errors otherwise.
  Status Get(int64_t activity_id, ActivityRecord* out);
  // Reads the activity from the database again and keeps that copy (its cache generation may
  // have changed), unless the copy held was read within `recheck_ms`: a cache refusing every
  // purchase then costs the database at most one read per activity per interval.
  Status Reload(int64_t activity_id, ActivityRecord* out);
  void Put(const ActivityRecord& activity);

 private:
  struct Entry {
    bool found = false;
    ActivityRecord activity;
    int64_t loaded_ms = 0;
  };

  bool Fresh(const Entry& entry, int64_t now) const;

  OrderStore* store_;
  std::function<int64_t()> now_ms_;
  const int64_t recheck_ms_;
  const int64_t started_recheck_ms_;
  std::shared_mutex mutex_;
  std::unordered_map<int64_t, Entry> entries_;
};

}  // namespace ferry::seckill
