#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "service/activity_directory.h"
#include "service/redrive_log.h"
#include "service/request_answer_cache.h"
#include "service/sold_out_flags.h"
#include "storage/order_store.h"
#include "storage/reservation_cache.h"

namespace ferry::seckill {

// What the handlers and background jobs of one provider share.
struct SeckillDeps {
  OrderStore* store = nullptr;
  // Null for the embedded backend: a purchase then writes its order synchronously.
  ReservationCache* cache = nullptr;
  std::function<Status(int64_t*)> next_order_no;
  std::function<int64_t()> now_ms;
  int64_t sold_out_ttl_ms = 500;
  size_t answer_cache_entries = 1 << 20;
  // The reconciler re-drives reservations that have had no database decision for this long,
  // at most `redrive_batch` per activity and pass, while this provider holds the activity's
  // re-drive lease (`redrive_lease_ms`, renewed as it re-drives) under `provider_id`.
  int64_t redrive_after_ms = 10000;
  int64_t redrive_batch = 100;
  int64_t redrive_lease_ms = 30000;
  std::string provider_id = "seckill-provider";  // unique per process; SeckillApp sets it
};

// The state behind the handlers: dependencies plus the provider-local caches.
struct SeckillCore {
  explicit SeckillCore(SeckillDeps d)
      : deps(std::move(d)),
        activities(deps.store, deps.now_ms),
        answers(deps.answer_cache_entries),
        sold_out(deps.sold_out_ttl_ms) {}

  // Hands a unit a cancellation returned to the database on to the cache generation it belongs
  // to (once, by order number) and lowers the sold-out flag.
  Status PublishRelease(const PendingCacheRelease& release);

  SeckillDeps deps;
  ActivityDirectory activities;
  RequestAnswerCache answers;
  SoldOutFlags sold_out;
  RedriveLog redriven;
};

}  // namespace ferry::seckill
