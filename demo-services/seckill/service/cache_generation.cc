#include "service/cache_generation.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>

namespace ferry::seckill {

namespace {

// Generations are random, not counted: a database created again (activity ids starting over)
// must not pick a generation that old keys of the same id still carry.
int64_t NewEpoch() {
  static thread_local std::mt19937_64 random{std::random_device{}()};
  std::uniform_int_distribution<int64_t> positive(1, INT64_MAX);
  return positive(random);
}

// Whether the keys hold reservations of this activity (an earlier generation of it), which a
// reload keeps, rather than keys another activity of the same id left.
Status KeysAreOurs(OrderStore& store, const ActivityRecord& activity, const CacheSnapshot& cache,
                   bool* ours) {
  *ours = false;
  if (cache.data_epoch == 0) return Status::Ok();
  return store.KnowsCacheEpoch(activity.activity_id, activity.sku_id, cache.data_epoch, ours);
}

}  // namespace

bool CacheIsCurrent(const CacheSnapshot& cache, int64_t db_epoch, int64_t db_seq) {
  return cache.present && !cache.stale && !cache.loading && db_epoch != 0 &&
         cache.epoch == db_epoch && cache.reservations >= db_seq;
}

Status LoadCacheGeneration(SeckillCore& core, ActivityRecord* activity, bool force,
                           bool* already_loaded) {
  ReservationCache& cache = *core.deps.cache;
  OrderStore& store = *core.deps.store;
  const int64_t id = activity->activity_id;
  const int64_t sku = activity->sku_id;
  constexpr int kMaxAttempts = 6;
  const int64_t wait_until = core.deps.now_ms() + 2 * core.deps.reload_grace_ms;
  for (int attempt = 0, looks = 0; attempt < kMaxAttempts; ++attempt, ++looks) {
    if (looks > 0) {
      if (Status s = store.GetActivity(id, activity); !s.ok()) return s;
    }
    CacheSnapshot before;
    if (Status s = cache.Snapshot(id, sku, &before); !s.ok()) return s;
    if (!force && CacheIsCurrent(before, activity->cache_epoch, activity->cache_seq)) {
      *already_loaded = true;
      return Status::Ok();
    }
    const int64_t now = core.deps.now_ms();
    if (before.loading && now - before.loading_since_ms < core.deps.reload_grace_ms) {
      // Another reload is under way: fencing over it would only make it start again. Its
      // result is as fresh as a load of our own.
      if (now >= wait_until) {
        return Status(StatusCode::UNAVAILABLE, "activity " + std::to_string(id) +
                                                   ": another reload is loading the cache; retry");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      force = false;
      --attempt;
      continue;
    }
    const int64_t epoch = NewEpoch();
    bool fenced = false;
    if (Status s = cache.Fence(id, sku, before.marker, epoch, now, &fenced); !s.ok()) {
      return s;
    }
    if (!fenced) continue;  // another reload fenced first: judge what it left
    force = false;          // from here on, the keys are reloaded by someone
    // The generation to replace is the one the database records after the fence: a reload that
    // switched it before our fence is seen, one switching it after fails our compare-and-set.
    if (Status s = store.GetActivity(id, activity); !s.ok()) return s;
    bool ours = false;
    if (Status s = KeysAreOurs(store, *activity, before, &ours); !s.ok()) return s;
    std::vector<ReservationEvent> kept;
    if (ours) {
      if (Status s = cache.ListReservations(id, sku, &kept); !s.ok()) return s;
    }
    std::vector<RequestScope> scopes;
    scopes.reserve(kept.size());
    for (const ReservationEvent& r : kept) {
      scopes.push_back({r.activity_id, r.sku_id, r.user_id, r.request_id});
    }
    CacheEpochBase base;
    Status switched =
        store.BeginCacheEpoch(id, sku, activity->cache_epoch, epoch, cache.ServerIdentity(),
                              static_cast<int64_t>(kept.size()), scopes, &base);
    if (switched.code() == StatusCode::FAILED_PRECONDITION) continue;  // another reload won
    if (!switched.ok()) return switched;
    CacheLoad load{.activity_id = id, .sku_id = sku, .epoch = epoch, .keep_requests = ours};
    // The participation set comes back with the stock, so that a cache rebuilt after losing its
    // data still refuses users who hold orders or reservations still to be written.
    if (Status s = store.ListBuyers(id, sku, &load.buyers); !s.ok()) return s;
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
    if (Status s = cache.Preheat(load, &raced); !s.ok()) return s;  // still fenced: retried
    if (raced) continue;  // another reload fenced the keys meanwhile: judge what it left
    activity->cache_epoch = epoch;
    activity->cache_seq = 0;
    activity->cache_server = cache.ServerIdentity();
    activity->remaining_stock = base.remaining_stock;
    *already_loaded = false;
    // Providers that saw the generation this one replaces sell out may hold that flag.
    if (load.stock > 0) core.AnnounceReopened(id, sku, epoch);
    return Status::Ok();
  }
  return Status(StatusCode::ABORTED,
                "activity " + std::to_string(id) + ": other reloads kept fencing the cache; retry");
}

}  // namespace ferry::seckill
