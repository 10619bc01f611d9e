#pragma once

#include <cstdint>

#include "seckill.pb.h"
#include "service/seckill_core.h"

namespace ferry::seckill {

// Compares the cache, the order queue and the database for one activity, re-drives
// reservations that have gone `redrive_after_ms` without a database decision (by queueing them
// again; the order writer is idempotent by request id), and lists every broken invariant.
// It never writes the database's stock into the cache: the two sides must balance (cache stock +
// reservations not yet written + releases not yet in the cache = database stock) and a
// difference is reported, not papered over. A cache that lost reservations the database wrote
// (restored from an older copy) is marked stale, which closes the sale until a preheat.
Status ReconcileActivity(SeckillCore& core, int64_t activity_id, ReconcileResponse* out);

}  // namespace ferry::seckill
