#pragma once

#include <cstdint>

#include "seckill.pb.h"
#include "service/seckill_core.h"

namespace ferry::seckill {

// Compares the cache, the order queue and the database for one activity, re-drives
// reservations that have gone `redrive_after_ms` without a database decision (by queueing them
// again; the order writer is idempotent by request id), and lists every broken invariant.
// It never writes the database's stock into the cache: the cache is allowed to be lower (units
// reserved but not yet written), and a higher cache is reported, not papered over.
Status ReconcileActivity(SeckillCore& core, int64_t activity_id, ReconcileResponse* out);

}  // namespace ferry::seckill
