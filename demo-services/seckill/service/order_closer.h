#pragma once

#include "service/seckill_core.h"

namespace ferry::seckill {

// Closes orders left unpaid past their deadline (UNPAID -> CANCELLED, conditional, so a
// payment racing it wins or loses as a whole) and hands every unit a cancellation returned to
// the database on to the cache, once per order. Returns true when it had a full batch, i.e.
// probably more to do.
bool CloseExpiredOrders(SeckillCore& core, int batch = 200);

}  // namespace ferry::seckill
