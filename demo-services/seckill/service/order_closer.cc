#include "service/order_closer.h"

#include <spdlog/spdlog.h>

#include "ferry/framework/logging.h"

namespace ferry::seckill {

bool CloseExpiredOrders(SeckillCore& core, int batch) {
  std::vector<OrderRecord> due;
  if (Status s = core.deps.store->ListDueOrders(core.deps.now_ms(), batch, &due); !s.ok()) {
    Logger().warn("order closer: {}", s.ToString());
    return false;
  }
  for (const OrderRecord& order : due) {
    // One order's channel failing does not hold the others up: its order was rescheduled (or
    // is listed again next pass).
    if (Status s = core.deps.payments->Settle(order); !s.ok()) {
      Logger().warn("order closer: order {}: {}", order.order_no, s.ToString());
    }
  }
  // Also picks up releases whose own publish failed.
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
  return static_cast<int>(due.size()) == batch || static_cast<int>(releases.size()) == batch;
}

bool SettlePayments(SeckillCore& core, int batch) {
  if (Status s = core.deps.payments->RefundOwed(batch); !s.ok()) {
    Logger().warn("payments: refunds: {}", s.ToString());
  }
  // A notification older than the age limit is refused for its age: its id need not be kept.
  const int64_t horizon =
      core.deps.now_ms() - 2 * core.deps.payments->options().notification_max_age_ms;
  int64_t removed = 0;
  if (Status s = core.deps.store->ForgetNotifications(horizon, batch, &removed); !s.ok()) {
    Logger().warn("payments: forgetting old notifications: {}", s.ToString());
  }
  return removed == batch;
}

}  // namespace ferry::seckill
