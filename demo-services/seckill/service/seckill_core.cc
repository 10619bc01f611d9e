#include "service/seckill_core.h"

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
  sold_out.Clear(release.activity_id, release.sku_id);
  return Status::Ok();
}

}  // namespace ferry::seckill
