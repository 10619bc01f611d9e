#pragma once

#include "service/seckill_core.h"

namespace ferry::seckill {

// Settles the open orders past their deadlines (Payments::Settle: an unpaid one closes; one
// with a payment under way closes once the channel closed the payment, or is paid) and hands
// every unit a closed order returned to the database on to the cache, once per order. Returns
// true when it had a full batch, i.e. probably more to do.
bool CloseExpiredOrders(SeckillCore& core, int batch = 200);

// The slower payment chores: asks the channels for the refunds owed, and forgets notification
// ids too old to be accepted anyway. Returns true when it had a full batch.
bool SettlePayments(SeckillCore& core, int batch = 200);

}  // namespace ferry::seckill
