#include "service/seckill_core.h"

#include "service/seckill_metrics.h"

namespace ferry::seckill {

Status SeckillCore::PublishRelease(const PendingCacheRelease& release) {
  // A release of an earlier generation is done: the current one was loaded from a stock that
  // counts its unit.
  if (deps.cache && release.cache_epoch == release.current_epoch) {
    ReleaseOutcome outcome = ReleaseOutcome::kReleased;
    Status s = deps.cache->Release(release.activity_id, release.sku_id,
                                   std::to_string(release.order_no), release.cache_epoch, &outcome);
    if (!s.ok()) return s;
    // Its generation is not loaded yet (a preheat in progress) or no longer sells (stale): the
    // release stays queued, and a later preheat's generation counts it in its stock.
    if (outcome == ReleaseOutcome::kNotCurrent) return Status::Ok();
  }
  if (Status s = deps.store->ForgetCacheRelease(release.order_no); !s.ok()) return s;
  AnnounceReopened(release.activity_id, release.sku_id, release.cache_epoch);
  return Status::Ok();
}

void SeckillCore::AnnounceSoldOut(int64_t activity_id, int64_t sku_id, int64_t epoch) {
  const StockSignal signal{StockSignal::Kind::kSoldOut, activity_id, sku_id, epoch};
  ApplyStockSignal(signal);
  if (deps.broadcast) deps.broadcast(signal);
}

void SeckillCore::AnnounceReopened(int64_t activity_id, int64_t sku_id, int64_t epoch) {
  const StockSignal signal{StockSignal::Kind::kReopened, activity_id, sku_id, epoch};
  ApplyStockSignal(signal);
  if (deps.broadcast) deps.broadcast(signal);
}

void SeckillCore::ApplyStockSignal(const StockSignal& signal) {
  if (signal.kind == StockSignal::Kind::kReopened) {
    sold_out.Clear(signal.activity_id, signal.sku_id);
    status.MarkReopened(signal.activity_id);
    return;
  }
  // A sold-out signal of a generation this provider no longer reads says nothing about the
  // current one's stock.
  if (status.MarkSoldOut(signal.activity_id, signal.epoch)) {
    sold_out.Set(signal.activity_id, signal.sku_id, deps.now_ms());
  }
}

Status SeckillCore::ReadStatus(int64_t activity_id, ActivityStatus* out) {
  Metrics().status_reads->Increment();
  Status s = deps.cache ? activities.Get(activity_id, &out->activity)
                        : deps.store->GetActivity(activity_id, &out->activity);
  if (s.code() == StatusCode::NOT_FOUND) return Status::Ok();  // found stays false
  if (!s.ok()) return s;
  out->found = true;
  const ActivityRecord& activity = out->activity;
  out->remaining = activity.remaining_stock;
  if (deps.cache && activity.open) {
    // The generation the marker names sells, whatever this provider's copy of the activity
    // says; a cache that is loading, stale or gone sells nothing, and how much it will hold is
    // not known yet.
    CacheSnapshot cache;
    // Back-pressure needs the queue's counts too: the whole snapshot (one MULTI; a second
    // command only when Redis cannot count the undelivered entries itself).
    s = deps.max_backlog > 0 ? deps.cache->Snapshot(activity.activity_id, activity.sku_id, &cache)
                             : deps.cache->ReadStock(activity.activity_id, activity.sku_id, &cache);
    if (!s.ok()) return s;
    if (deps.max_backlog > 0) out->backlog = cache.queue_undelivered + cache.queue_pending;
    const bool selling = cache.present && !cache.loading && !cache.stale;
    out->remaining = selling ? cache.stock : -1;
    out->epoch = cache.epoch;
  }
  out->sold_out = activity.open && out->remaining == 0;
  return Status::Ok();
}

}  // namespace ferry::seckill
