#include "service/reconciler.h"

#include <string>

#include "service/cache_generation.h"
#include "service/seckill_metrics.h"

namespace ferry::seckill {

namespace {

std::string N(int64_t v) { return std::to_string(v); }

// Holds (taking or renewing) the activity's lease for this provider: one provider at a time
// re-drives and reloads an activity, so that providers reconciling at once do not all queue the
// same reservations again or fence each other's reloads.
Status HoldLease(SeckillCore& core, const ActivityRecord& activity, bool* held) {
  return core.deps.cache->HoldRedriveLease(activity.activity_id, activity.sku_id,
                                           core.deps.provider_id, core.deps.redrive_lease_ms, held);
}

// Entries the order writers have held unacknowledged for redrive_after_ms (their consumers
// gone, and no writer claiming them): decided ones are acknowledged, the others queued again as
// new entries any writer reads. At most redrive_batch per pass; the database is asked about
// those only, not about every reservation.
Status RedriveIdle(SeckillCore& core, const ActivityRecord& activity, ReconcileResponse* out) {
  ReservationCache& cache = *core.deps.cache;
  std::vector<ReservationEvent> idle;
  if (Status s = cache.ListIdle(activity.activity_id, activity.sku_id, core.deps.redrive_after_ms,
                                static_cast<int>(core.deps.redrive_batch), &idle);
      !s.ok()) {
    return s;
  }
  std::vector<std::string> done;
  for (ReservationEvent& event : idle) {
    if (event.malformed.empty()) {
      RequestRecord decided;
      Status s = core.deps.store->GetRequest(
          {event.activity_id, event.sku_id, event.user_id, event.request_id}, &decided);
      if (s.code() == StatusCode::NOT_FOUND) {
        if (s = cache.Requeue(event); !s.ok()) return s;
        out->set_redriven(out->redriven() + 1);
      } else if (!s.ok()) {
        return s;
      }
      done.push_back(event.event_id);
    }
  }
  return cache.Ack(activity.activity_id, activity.sku_id, done);
}

// Reservations the database has not decided although the queue holds nothing (their entries
// lost: trimmed or acknowledged by hand, say), found a page of the activity's answers per pass
// from where the last pass stopped, and queued again once older than redrive_after_ms, at most
// redrive_batch per pass. Only while the counts say some are missing and the queue is empty
// (an entry still queued may be any reservation's), so a healthy sale pays nothing for it and
// nothing is queued twice.
Status RedriveMissing(SeckillCore& core, const ActivityRecord& activity, ReconcileResponse* out) {
  std::string cursor = core.RedriveCursor(activity.activity_id);
  std::vector<ReservationEvent> page;
  if (Status s =
          core.deps.cache->ScanReservations(activity.activity_id, activity.sku_id, &cursor,
                                            static_cast<int>(core.deps.redrive_batch), &page);
      !s.ok()) {
    return s;
  }
  core.SetRedriveCursor(activity.activity_id, cursor);
  const int64_t due = core.deps.now_ms() - core.deps.redrive_after_ms;
  std::erase_if(page, [due](const ReservationEvent& r) { return r.reserved_ms > due; });
  std::vector<RequestScope> scopes;
  for (const ReservationEvent& r : page) {
    scopes.push_back({r.activity_id, r.sku_id, r.user_id, r.request_id});
  }
  std::vector<bool> undecided;
  if (Status s = core.deps.store->FindUndecided(scopes, &undecided); !s.ok()) return s;
  for (size_t i = 0; i < page.size() && out->redriven() < core.deps.redrive_batch; ++i) {
    if (!undecided[i]) continue;
    page[i].cache_epoch = activity.cache_epoch;
    if (Status s = core.deps.cache->Requeue(page[i]); !s.ok()) return s;
    out->set_redriven(out->redriven() + 1);
  }
  return Status::Ok();
}

// The two sides of the stock once quiescent: the cache's units, plus the units its reservations
// not yet written will take from the database, plus the units cancellations gave the database
// that the cache has not received, equal the database's stock. Counted set-based: the
// reservations the cache accepted less the decisions the database recorded of them.
struct CacheBalance {
  int64_t cache_stock = 0;
  int64_t undecided = 0;
  int64_t releases_pending = 0;
  int64_t database_stock = 0;
  int64_t Difference() const { return cache_stock + undecided + releases_pending - database_stock; }
};

CacheBalance BalanceOf(const CacheSnapshot& cache, const StoreCounts& counts) {
  const int64_t decided = counts.requests_created + counts.requests_failed - counts.decided_base;
  return CacheBalance{cache.stock, cache.reservations - decided, counts.releases_pending,
                      counts.remaining_stock};
}

// A difference read while orders and releases are in flight is read again (the cache first, then
// the database) a few times before it stands.
Status Balance(SeckillCore& core, const ActivityRecord& activity, CacheBalance* balance) {
  constexpr int kReads = 3;
  for (int read = 1; read < kReads && balance->Difference() != 0; ++read) {
    CacheSnapshot snapshot;
    StoreCounts counts;
    if (Status s = core.deps.cache->Snapshot(activity.activity_id, activity.sku_id, &snapshot);
        !s.ok()) {
      return s;
    }
    if (Status s = core.deps.store->Count(activity.activity_id, activity.sku_id, &counts);
        !s.ok()) {
      return s;
    }
    *balance = BalanceOf(snapshot, counts);
  }
  return Status::Ok();
}

std::string NotCurrentReason(const CacheSnapshot& snapshot, int64_t db_epoch) {
  if (!snapshot.present && !snapshot.loading) return "the cache lost the open activity";
  if (snapshot.loading) return "a reload of the cache is under way";
  if (snapshot.stale) {
    return "the cache's generation stopped selling (it lost reservations, or Redis restarted, "
           "was restored or failed over since it was loaded)";
  }
  return "the cache holds generation " + N(snapshot.epoch) + ", the database " + N(db_epoch) +
         " (keys of an older copy or of another activity)";
}

}  // namespace

Status ReconcileActivity(SeckillCore& core, int64_t activity_id, ReconcileResponse* out,
                         bool reload) {
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
  out->set_orders_paying(counts.orders_paying);
  out->set_orders_confirming(counts.orders_confirming);
  out->set_orders_paid(counts.orders_paid);
  out->set_orders_cancelled(counts.orders_cancelled);
  out->set_refunds_required(counts.refunds_required);
  out->set_refunds_done(counts.refunds_done);
  out->set_users_with_two_orders(counts.users_with_two_orders);
  out->set_paid_without_payment(counts.paid_without_payment);
  out->set_notifications_refused(Metrics().NotificationsRefused());
  out->set_cache_stock(-1);
  out->set_releases_pending(counts.releases_pending);

  auto violation = [out](std::string line) { out->add_violations(std::move(line)); };
  const int64_t live =
      counts.orders_unpaid + counts.orders_paying + counts.orders_confirming + counts.orders_paid;
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
  if (counts.paid_without_payment != 0) {
    violation(N(counts.paid_without_payment) +
              " orders are PAID without a channel's payment of their amount");
  }

  ReservationCache* cache = core.deps.cache;
  if (cache == nullptr) {
    out->set_reservations(counts.requests_created);
    out->set_invariants_hold(out->violations_size() == 0);
    return Status::Ok();
  }
  // A replica promoted in place keeps its connections: only asking the server notices it.
  if (Status s = cache->CheckServer(); !s.ok()) return s;
  CacheSnapshot snapshot;
  if (Status s = cache->Snapshot(activity.activity_id, activity.sku_id, &snapshot); !s.ok()) {
    return s;
  }
  out->set_queue_backlog(snapshot.queue_undelivered + snapshot.queue_pending);
  bool current = CacheIsCurrent(snapshot, counts.cache_epoch, 0);
  if (current && snapshot.reservations < counts.cache_seq) {
    // The database wrote orders of reservations the cache no longer counts: it was restored
    // from an older copy. It sells no more (nor takes releases) until reloaded.
    bool marked = false;
    if (Status s =
            cache->MarkStale(activity.activity_id, activity.sku_id, counts.cache_epoch, &marked);
        !s.ok()) {
      return s;
    }
    violation("the cache counts " + N(snapshot.reservations) +
              " reservations but the database wrote orders up to reservation " +
              N(counts.cache_seq) + ": it lost reservations (restored from an older copy)");
    current = false;
    snapshot.stale = true;
  }
  const int64_t queued = snapshot.queue_pending + snapshot.queue_undelivered;
  const bool missing = current && queued == 0 && BalanceOf(snapshot, counts).undecided > 0;
  const bool wants_work = (reload && !current) || snapshot.queue_pending > 0 || missing;
  bool held = false;
  if (activity.open && wants_work) {
    if (Status s = HoldLease(core, activity, &held); !s.ok()) return s;
  }
  if (!current && activity.open) {
    const bool reload_running = snapshot.loading && core.deps.now_ms() - snapshot.loading_since_ms <
                                                        core.deps.reload_grace_ms;
    if (reload && held && !reload_running) {
      // Reloaded from the database under the lease: nothing sells meanwhile, and every unit of
      // the database and every reservation still queued is counted once.
      bool already = false;
      ActivityRecord reloaded = activity;
      if (Status s = LoadCacheGeneration(core, &reloaded, false, &already); !s.ok()) {
        violation(NotCurrentReason(snapshot, counts.cache_epoch) +
                  "; the reload failed: " + s.ToString());
      } else {
        core.activities.Put(reloaded);
        out->set_reloaded(true);
      }
    } else {
      violation(NotCurrentReason(snapshot, counts.cache_epoch) +
                (reload_running || !reload
                     ? ""
                     : "; another provider holds the activity's lease to reload it"));
    }
  }
  if (current) {
    out->set_cache_stock(snapshot.stock);
    if (held && snapshot.queue_pending > 0) {
      if (Status s = RedriveIdle(core, activity, out); !s.ok()) return s;
    }
    if (held && missing) {
      if (Status s = RedriveMissing(core, activity, out); !s.ok()) return s;
    }
    CacheBalance balance = BalanceOf(snapshot, counts);
    if (Status s = Balance(core, activity, &balance); !s.ok()) return s;
    out->set_reservations(snapshot.reservations);
    out->set_reservations_without_order(balance.undecided);
    out->set_cache_difference(balance.Difference());
    if (balance.Difference() != 0) {
      violation("cache stock " + N(balance.cache_stock) + " + reservations without order " +
                N(balance.undecided) + " + releases pending " + N(balance.releases_pending) +
                " != database stock " + N(balance.database_stock) + " (difference " +
                N(balance.Difference()) + ")");
    }
  }
  out->set_invariants_hold(out->violations_size() == 0);
  return Status::Ok();
}

}  // namespace ferry::seckill
