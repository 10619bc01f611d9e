#include "service/cache_generation.h"

#include <algorithm>
#include <random>

namespace ferry::seckill {

namespace {

// Generations are random, not counted: a database created again (activity ids starting over)
// must not pick a generation that old keys of the same id still carry.
int64_t NewEpoch() {
  static thread_local std::mt19937_64 random{std::random_device{}()};
  std::uniform_int_distribution<int64_t> positive(1, INT64_MAX);
  return positive(random);
}

}  // namespace

bool CacheIsCurrent(const CacheSnapshot& cache, int64_t db_epoch, int64_t db_seq) {
  return cache.present && !cache.stale && db_epoch != 0 && cache.epoch == db_epoch &&
         cache.reservations >= db_seq;
}

Status LoadCacheGeneration(SeckillCore& core, ActivityRecord* activity, bool* already_loaded) {
  ReservationCache& cache = *core.deps.cache;
  OrderStore& store = *core.deps.store;
  constexpr int kMaxAttempts = 4;
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    if (attempt > 0) {
      if (Status s = store.GetActivity(activity->activity_id, activity); !s.ok()) return s;
    }
    CacheSnapshot before;
    if (Status s = cache.Snapshot(activity->activity_id, activity->sku_id, &before); !s.ok()) {
      return s;
    }
    if (CacheIsCurrent(before, activity->cache_epoch, activity->cache_seq)) {
      *already_loaded = true;
      return Status::Ok();
    }
    bool ours = false;
    if (before.epoch != 0) {
      if (Status s =
              store.KnowsCacheEpoch(activity->activity_id, activity->sku_id, before.epoch, &ours);
          !s.ok()) {
        return s;
      }
    }
    std::vector<ReservationEvent> kept;
    if (ours) {
      if (Status s = cache.ListReservations(activity->activity_id, activity->sku_id, &kept);
          !s.ok()) {
        return s;
      }
    }
    std::vector<RequestScope> scopes;
    scopes.reserve(kept.size());
    for (const ReservationEvent& r : kept) {
      scopes.push_back({r.activity_id, r.sku_id, r.user_id, r.request_id});
    }
    const int64_t epoch = NewEpoch();
    CacheEpochBase base;
    if (Status s =
            store.BeginCacheEpoch(activity->activity_id, activity->sku_id, epoch, scopes, &base);
        !s.ok()) {
      return s;
    }
    CacheLoad load{.activity_id = activity->activity_id,
                   .sku_id = activity->sku_id,
                   .epoch = epoch,
                   .expected_marker = before.marker,
                   .keep_requests = ours};
    // The participation set comes back with the stock, so that a cache rebuilt after losing its
    // data still refuses users who hold orders or reservations still to be written.
    if (Status s = store.ListBuyers(activity->activity_id, activity->sku_id, &load.buyers);
        !s.ok()) {
      return s;
    }
    int64_t undecided = 0;
    for (size_t i = 0; i < kept.size(); ++i) {
      if (base.undecided[i]) {
        ++undecided;
        load.buyers.push_back(kept[i].user_id);
      } else {
        // Decided already, so the database's stock counts it: a give-back of its unit by the
        // order writer (a duplicate buyer) must not reach the new generation again.
        load.released_keys.push_back("r:" + RequestField(kept[i].user_id, kept[i].request_id));
      }
    }
    load.stock = std::max<int64_t>(0, base.remaining_stock - undecided);
    bool raced = false;
    if (Status s = cache.Preheat(load, &raced); !s.ok()) return s;  // the activity stays closed
    if (raced) continue;  // another preheat loaded a generation meanwhile: judge that one
    activity->cache_epoch = epoch;
    activity->cache_seq = 0;
    activity->remaining_stock = base.remaining_stock;
    *already_loaded = false;
    return Status::Ok();
  }
  return Status(StatusCode::ABORTED, "activity " + std::to_string(activity->activity_id) +
                                         ": other preheats kept loading the cache; retry");
}

}  // namespace ferry::seckill
