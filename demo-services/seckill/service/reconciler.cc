#include "service/reconciler.h"

#include <optional>
#include <string>

#include "service/cache_generation.h"

namespace ferry::seckill {

namespace {

std::string N(int64_t v) { return std::to_string(v); }

// Re-queues accepted reservations the database has not decided after the grace period: at most
// redrive_batch per pass, each at most once per grace period, and only while this provider
// holds the activity's re-drive lease (taken when there is something to re-drive), so that
// providers reconciling at once do not all queue the same reservations again.
Status RedriveStale(SeckillCore& core, const ActivityRecord& activity, ReconcileResponse* out) {
  std::vector<ReservationEvent> reservations;
  if (Status s =
          core.deps.cache->ListReservations(activity.activity_id, activity.sku_id, &reservations);
      !s.ok()) {
    return s;
  }
  out->set_reservations(static_cast<int64_t>(reservations.size()));
  const int64_t now = core.deps.now_ms();
  int64_t undecided = 0;
  std::optional<bool> leased;
  for (ReservationEvent& reservation : reservations) {
    reservation.cache_epoch = activity.cache_epoch;
    RequestRecord decided;
    Status s = core.deps.store->GetRequest(
        {reservation.activity_id, reservation.sku_id, reservation.user_id, reservation.request_id},
        &decided);
    if (s.ok()) continue;
    if (s.code() != StatusCode::NOT_FOUND) return s;
    ++undecided;
    if (now - reservation.reserved_ms < core.deps.redrive_after_ms) continue;
    if (out->redriven() >= core.deps.redrive_batch) continue;
    if (!leased) {
      bool held = false;
      if (s = core.deps.cache->HoldRedriveLease(activity.activity_id, activity.sku_id,
                                                core.deps.provider_id, core.deps.redrive_lease_ms,
                                                &held);
          !s.ok()) {
        return s;
      }
      leased = held;
    }
    if (!*leased) continue;
    const std::string key = RequestKeyText(
        {reservation.activity_id, reservation.sku_id, reservation.user_id, reservation.request_id});
    if (!core.redriven.Due(key, now, core.deps.redrive_after_ms)) continue;
    if (s = core.deps.cache->Requeue(reservation); !s.ok()) {
      core.redriven.Forget(key);
      return s;
    }
    out->set_redriven(out->redriven() + 1);
  }
  out->set_reservations_without_order(undecided);
  return Status::Ok();
}

// The two sides of the stock once quiescent: the cache's units, plus the units its reservations
// not yet written will take from the database, plus the units cancellations gave the database
// that the cache has not received, equal the database's stock. A difference in *balance (read
// while orders and releases may be in flight) is read again, the cache first and then the
// database, a few times before it stands.
struct CacheBalance {
  int64_t cache_stock = 0;
  int64_t undecided = 0;
  int64_t releases_pending = 0;
  int64_t database_stock = 0;
  int64_t Difference() const { return cache_stock + undecided + releases_pending - database_stock; }
};

Status BalanceCache(SeckillCore& core, const ActivityRecord& activity, CacheBalance* balance) {
  CacheSnapshot snapshot;
  StoreCounts counts;
  constexpr int kReads = 3;
  for (int read = 0;; ++read) {
    if (balance->Difference() == 0 || read + 1 == kReads) return Status::Ok();
    ReservationCache& cache = *core.deps.cache;
    if (Status s = cache.Snapshot(activity.activity_id, activity.sku_id, &snapshot); !s.ok()) {
      return s;
    }
    std::vector<ReservationEvent> reservations;
    if (Status s = cache.ListReservations(activity.activity_id, activity.sku_id, &reservations);
        !s.ok()) {
      return s;
    }
    if (Status s = core.deps.store->Count(activity.activity_id, activity.sku_id, &counts);
        !s.ok()) {
      return s;
    }
    int64_t undecided = 0;
    for (const ReservationEvent& r : reservations) {
      RequestRecord decided;
      Status s =
          core.deps.store->GetRequest({r.activity_id, r.sku_id, r.user_id, r.request_id}, &decided);
      if (s.code() == StatusCode::NOT_FOUND) {
        ++undecided;
      } else if (!s.ok()) {
        return s;
      }
    }
    *balance =
        CacheBalance{snapshot.stock, undecided, counts.releases_pending, counts.remaining_stock};
  }
}

}  // namespace

Status ReconcileActivity(SeckillCore& core, int64_t activity_id, ReconcileResponse* out) {
  ActivityRecord activity;
  if (Status s = core.deps.store->GetActivity(activity_id, &activity); !s.ok()) return s;
  StoreCounts counts;
  if (Status s = core.deps.store->Count(activity.activity_id, activity.sku_id, &counts); !s.ok()) {
    return s;
  }
  out->set_activity_id(activity.activity_id);
  out->set_initial_stock(activity.initial_stock);
  out->set_database_stock(counts.remaining_stock);
  out->set_orders_unpaid(counts.orders_unpaid);
  out->set_orders_confirming(counts.orders_confirming);
  out->set_orders_paid(counts.orders_paid);
  out->set_orders_cancelled(counts.orders_cancelled);
  out->set_refunds_required(counts.refunds_required);
  out->set_refunds_done(counts.refunds_done);
  out->set_users_with_two_orders(counts.users_with_two_orders);
  out->set_cache_stock(-1);
  out->set_releases_pending(counts.releases_pending);

  auto violation = [out](std::string line) { out->add_violations(std::move(line)); };
  const int64_t live = counts.orders_unpaid + counts.orders_confirming + counts.orders_paid;
  const int64_t orders = live + counts.orders_cancelled;
  if (counts.remaining_stock < 0)
    violation("database stock is negative: " + N(counts.remaining_stock));
  if (counts.remaining_stock + live != activity.initial_stock) {
    violation("database stock " + N(counts.remaining_stock) + " + live orders " + N(live) +
              " != initial stock " + N(activity.initial_stock));
  }
  if (live > activity.initial_stock) {
    violation("live orders " + N(live) + " exceed stock " + N(activity.initial_stock));
  }
  if (counts.users_with_two_orders != 0) {
    violation(N(counts.users_with_two_orders) + " users hold two orders");
  }
  if (counts.requests_created != orders) {
    violation(N(counts.requests_created) + " requests recorded as ordered but " + N(orders) +
              " orders exist");
  }

  if (ReservationCache* cache = core.deps.cache) {
    CacheSnapshot snapshot;
    if (Status s = cache->Snapshot(activity.activity_id, activity.sku_id, &snapshot); !s.ok()) {
      return s;
    }
    out->set_queue_backlog(snapshot.queue_undelivered + snapshot.queue_pending);
    bool current = CacheIsCurrent(snapshot, counts.cache_epoch, 0);
    if (current && snapshot.reservations < counts.cache_seq) {
      // The database wrote orders of reservations the cache no longer counts: it was restored
      // from an older copy. It sells no more (nor takes releases) until preheated again.
      bool marked = false;
      if (Status s =
              cache->MarkStale(activity.activity_id, activity.sku_id, counts.cache_epoch, &marked);
          !s.ok()) {
        return s;
      }
      violation("the cache counts " + N(snapshot.reservations) +
                " reservations but the database wrote orders up to reservation " +
                N(counts.cache_seq) +
                ": it lost reservations (restored from an older copy); closed until preheated "
                "again");
      current = false;
    } else if (!current && activity.open) {
      violation(!snapshot.present ? "the cache lost the open activity; preheat it again"
                : snapshot.stale ? "the cache was found to have lost reservations; preheat it again"
                                 : "the cache holds generation " + N(snapshot.epoch) +
                                       ", the database " + N(counts.cache_epoch) +
                                       " (keys of an older copy or of another activity); preheat "
                                       "it again");
    }
    if (current) {
      out->set_cache_stock(snapshot.stock);
      if (Status s = RedriveStale(core, activity, out); !s.ok()) return s;
      CacheBalance balance{snapshot.stock, out->reservations_without_order(),
                           counts.releases_pending, counts.remaining_stock};
      if (Status s = BalanceCache(core, activity, &balance); !s.ok()) return s;
      out->set_cache_difference(balance.Difference());
      if (balance.Difference() != 0) {
        violation("cache stock " + N(balance.cache_stock) + " + reservations without order " +
                  N(balance.undecided) + " + releases pending " + N(balance.releases_pending) +
                  " != database stock " + N(balance.database_stock) + " (difference " +
                  N(balance.Difference()) + ")");
      }
    }
  } else {
    out->set_reservations(counts.requests_created);
  }
  out->set_invariants_hold(out->violations_size() == 0);
  return Status::Ok();
}

}  // namespace ferry::seckill
