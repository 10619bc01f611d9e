#pragma once

#include "service/seckill_core.h"

namespace ferry::seckill {

// Whether the cache's keys are the generation the database records for the activity and hold
// every reservation the database has written of it. Anything else (no keys, another
// generation: a reused activity id or a rollback past a preheat, a stale marker, fewer
// reservations than written: a rollback) must not sell.
bool CacheIsCurrent(const CacheSnapshot& cache, int64_t db_epoch, int64_t db_seq);

// Preheat's cache side (redis+mariadb): nothing when the cache is current (*already_loaded);
// otherwise loads a new generation. Its stock is the database's remaining stock, read under the
// stock row's lock in the transaction that records the generation, less the reservations the
// kept keys accepted and the database has not decided yet (they will take their units when
// written): no unit is counted twice. Keys of another activity (an unknown generation) are
// deleted; those of an earlier generation of this one keep their answers and order queue.
// Updates *activity (generation, stock). ABORTED when other preheats kept racing it.
Status LoadCacheGeneration(SeckillCore& core, ActivityRecord* activity, bool* already_loaded);

}  // namespace ferry::seckill
