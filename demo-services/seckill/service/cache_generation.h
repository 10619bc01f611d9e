#pragma once

#include "service/seckill_core.h"

namespace ferry::seckill {

// Whether the cache's keys are the generation the database records for the activity, loaded
// into the Redis server state that is still there, and hold every reservation the database has
// written of it. Anything else (no keys, another generation: a reused activity id or a rollback
// past a preheat, a reload under way, a stale marker, a server restarted, restored or replaced
// since the load, fewer reservations than written: a rollback) must not sell.
bool CacheIsCurrent(const CacheSnapshot& cache, int64_t db_epoch, int64_t db_seq);

// Preheat's cache side (redis+mariadb): nothing when the cache is current and `force` is false
// (*already_loaded); otherwise loads a new generation, fenced against everything else that
// touches the keys:
//   1. the marker is set to "loading" (compare-and-set on the marker read), which closes sales
//      and releases of whatever generation the keys held;
//   2. the reservations the keys hold are listed (none can be added any more);
//   3. the database switches the activity to the new generation (compare-and-set on the
//      generation it recorded), reading its remaining stock and which listed reservations it
//      has not decided, under the stock row's lock;
//   4. the keys are loaded and the marker names the new generation.
// Its stock is the database's, less the listed reservations not decided yet (they take their
// units when written): no unit is counted twice or lost, and a reservation made before the
// fence is counted in the new generation. Keys of another activity (an unknown generation) are
// deleted; those of an earlier generation of this one keep their answers and order queue. A
// concurrent reload makes this one start again from the marker it left, so that the database
// and the keys end in one generation. Updates *activity (generation, stock). ABORTED when other
// reloads kept racing it.
Status LoadCacheGeneration(SeckillCore& core, ActivityRecord* activity, bool force,
                           bool* already_loaded);

}  // namespace ferry::seckill
