#pragma once

#include <cstdint>
#include <string>

#include "service/seckill_core.h"

namespace ferry::seckill {

// Gives up an order event of `activity`'s queue that will never be written (redis+mariadb
// backend): it does not parse, or its transaction kept failing (`reason`, kReasonUnparsable or
// kReasonWriteFailed; `detail` says how). When the event names its reservation (user and
// request id), the database first records the request as FAILED for `reason` unless it was
// decided before, so no later delivery or re-drive can still make the order; then the
// reservation's unit goes back to the cache, once (release key "r:" + RequestField, the same
// as an already-joined buyer's, and only for a request the cache accepted). Last, the event is
// acknowledged and copied to the dead-letter queue in one step, and counted.
//
// An event whose order exists after all is only acknowledged. A database that is unreachable
// (UNAVAILABLE) or contended (ABORTED), or any error of the cache, leaves the event pending, to
// be given up on a later delivery; a database that refuses to record the failure otherwise (a
// request scope it cannot hold) does not: the event is dead-lettered uncompensated, saying so
// in its detail.
Status GiveUpEvent(SeckillCore& core, const ActivityRecord& activity, const ReservationEvent& event,
                   const char* reason, const std::string& detail, int64_t max_letters);

}  // namespace ferry::seckill
