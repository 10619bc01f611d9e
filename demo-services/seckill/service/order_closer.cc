#include "service/order_closer.h"

#include <spdlog/spdlog.h>

#include "ferry/framework/logging.h"

namespace ferry::seckill {

bool CloseExpiredOrders(SeckillCore& core, int batch) {
  std::vector<int64_t> expired;
  if (Status s = core.deps.store->ListExpiredUnpaid(core.deps.now_ms(), batch, &expired); !s.ok()) {
    Logger().warn("order closer: {}", s.ToString());
    return false;
  }
  for (int64_t order_no : expired) {
    CancelResult result;
    if (Status s = core.deps.store->CancelUnpaid(order_no, &result); !s.ok()) {
      Logger().warn("order closer: order {}: {}", order_no, s.ToString());
    }
  }
  // Also picks up releases of CancelOrder calls whose own publish failed.
  std::vector<PendingCacheRelease> releases;
  if (Status s = core.deps.store->ListPendingCacheReleases(batch, &releases); !s.ok()) {
    Logger().warn("order closer: {}", s.ToString());
    return false;
  }
  for (const PendingCacheRelease& release : releases) {
    if (Status s = core.PublishRelease(release); !s.ok()) {
      Logger().warn("order closer: release of order {}: {}", release.order_no, s.ToString());
      return false;
    }
  }
  return static_cast<int>(expired.size()) == batch || static_cast<int>(releases.size()) == batch;
}

}  // namespace ferry::seckill
