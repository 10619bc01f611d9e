#pragma once

#include <string>

#include "ferry/storage/sql_connection.h"

namespace ferry::seckill {

// The order store's tables, as one script for the dialect. Idempotent (IF NOT EXISTS).
// Constraints carry the invariants: one order per (user, activity, sku), one decision per
// request id, one payment record per (channel, transaction), one stock release per order.
std::string OrderSchemaSql(storage::SqlDialect dialect);

}  // namespace ferry::seckill
