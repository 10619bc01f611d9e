#include "service/seckill_core.h"

namespace ferry::seckill {

Status SeckillCore::PublishRelease(const PendingCacheRelease& release) {
  if (deps.cache) {
    bool released = false;
    Status s = deps.cache->Release(release.activity_id, release.sku_id,
                                   std::to_string(release.order_no), &released);
    if (!s.ok()) return s;
  }
  if (Status s = deps.store->MarkCacheReleased(release.order_no); !s.ok()) return s;
  sold_out.Clear(release.activity_id, release.sku_id);
  return Status::Ok();
}

}  // namespace ferry::seckill
