#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "service/activity_directory.h"
#include "service/activity_status.h"
#include "service/admission.h"
#include "service/buyer_blacklist.h"
#include "service/decided_results.h"
#include "service/payments.h"
#include "service/request_answer_cache.h"
#include "service/sold_out_flags.h"
#include "service/stock_signal.h"
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
  size_t result_cache_entries = 1 << 18;  // GetResult's final answers remembered
  ActivityStatusOptions status;           // GetActivity's statuses
  // Tells the other providers (and this one) of a stock signal: the broadcast (redis+mariadb).
  // Null: this provider is alone (embedded), and its own flags are all there is.
  std::function<void(const StockSignal&)> broadcast;
  // The reconciler re-drives order events the writers have held unacknowledged this long, at
  // most `redrive_batch` per activity and pass, and reloads a cache that stopped selling, while
  // this provider holds the activity's lease (`redrive_lease_ms`, renewed each pass) under
  // `provider_id`.
  int64_t redrive_after_ms = 10000;
  int64_t redrive_batch = 100;
  int64_t redrive_lease_ms = 30000;
  std::string provider_id = "seckill-provider";  // unique per process; SeckillApp sets it
  // A reload that fenced the cache this recently is left to finish; an older one is taken
  // over (its provider died).
  int64_t reload_grace_ms = 5000;
  std::string currency = "CNY";  // of every order's amount (payments.currency)
  // Payments: starts them at channels, applies what channels say, settles deadlines.
  Payments* payments = nullptr;
  AdmissionOptions admission;  // Admit, and the admission token Purchase then needs
  // Who waits and who is admitted: Redis (redis+mariadb) or this provider's memory (embedded);
  // null while admission is off.
  AdmissionLine* admission_line = nullptr;
  // Purchase answers BUSY while an activity's order queue holds more than this (0: never).
  int64_t max_backlog = 0;
  int64_t busy_retry_after_ms = 1000;
};

// The state behind the handlers: dependencies plus the provider-local caches.
struct SeckillCore {
  explicit SeckillCore(SeckillDeps d)
      : deps(std::move(d)),
        activities(deps.store, deps.now_ms),
        answers(deps.answer_cache_entries),
        sold_out(deps.sold_out_ttl_ms),
        results(deps.result_cache_entries),
        blacklist(deps.store),
        admission(deps.admission, deps.admission_line),
        status(
            deps.status, [this](int64_t id, ActivityStatus* out) { return ReadStatus(id, out); },
            [this](int64_t* highest) { return deps.store->HighestActivityId(highest); },
            deps.now_ms) {}

  // Hands a unit a cancellation returned to the database on to the cache generation it belongs
  // to (once, by order number) and lowers the sold-out flag.
  Status PublishRelease(const PendingCacheRelease& release);
  // This provider found no unit left / gave units back: its own flags now, the other providers'
  // through the broadcast.
  void AnnounceSoldOut(int64_t activity_id, int64_t sku_id, int64_t epoch);
  void AnnounceReopened(int64_t activity_id, int64_t sku_id, int64_t epoch);
  // A signal from the broadcast (or this provider's own): sets or clears the sold-out flag and
  // the status.
  void ApplyStockSignal(const StockSignal& signal);
  // Asks the reconciler for a pass now (a generation found stale, Redis found changed), rather
  // than at its next interval.
  void RequestReconcile() {
    std::lock_guard lock(reconcile_mu_);
    if (reconcile_now_) reconcile_now_();
  }
  // Where the reconciler's page-by-page search for reservations whose queue entry was lost
  // stands, per activity ("" at the start).
  std::string RedriveCursor(int64_t activity_id) {
    std::lock_guard lock(reconcile_mu_);
    return redrive_cursors_[activity_id];
  }
  void SetRedriveCursor(int64_t activity_id, std::string cursor) {
    std::lock_guard lock(reconcile_mu_);
    redrive_cursors_[activity_id] = std::move(cursor);
  }
  // What RequestReconcile runs (SeckillApp: wake the reconciler; nothing once it stopped).
  void SetReconcileNow(std::function<void()> wake) {
    std::lock_guard lock(reconcile_mu_);
    reconcile_now_ = std::move(wake);
  }

  SeckillDeps deps;
  ActivityDirectory activities;
  RequestAnswerCache answers;
  SoldOutFlags sold_out;
  DecidedResults results;
  BuyerBlacklist blacklist;
  Admission admission;
  ActivityStatusBoard status;

 private:
  // One read of the activity's status. redis+mariadb: the activity from the directory (which
  // keeps open ones in memory) and its units from the cache's stock counter; embedded: the
  // activity's row, stock included (one query).
  Status ReadStatus(int64_t activity_id, ActivityStatus* out);

  std::mutex reconcile_mu_;
  std::function<void()> reconcile_now_;
  std::map<int64_t, std::string> redrive_cursors_;
};

}  // namespace ferry::seckill
