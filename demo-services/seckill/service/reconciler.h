#pragma once

#include <cstdint>

#include "seckill.pb.h"
#include "service/seckill_core.h"

namespace ferry::seckill {

// Compares the cache, the order queue and the database for one activity with set-based counts
// (a handful of statements and commands whatever the number of reservations), lists every broken
// invariant, and, holding the activity's lease: re-drives order events the writers have held
// unacknowledged for `redrive_after_ms` (queued again; the order writer is idempotent by request
// id), and, when `reload`, reloads a cache that lost the activity or whose generation stopped
// selling (LoadCacheGeneration, which closes sales first). It never writes the database's stock
// into a selling cache: the two sides must balance (cache stock + reservations not yet written +
// releases not yet in the cache = database stock) and a difference is reported, not papered
// over. A cache that lost reservations the database wrote (restored from an older copy) is
// marked stale at once.
// `reload`: the background pass reloads; the operator's Reconcile reports and leaves the reload
// to it (or to Preheat).
Status ReconcileActivity(SeckillCore& core, int64_t activity_id, ReconcileResponse* out,
                         bool reload = false);

}  // namespace ferry::seckill
