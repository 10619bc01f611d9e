#pragma once

#include <string>

#include "ferry/storage/sql_connection.h"

namespace ferry::seckill {

// The layout OrderSchemaSql creates, recorded in seckill_schema. 2: request decisions keyed by
// (user, activity, sku, request id), identifiers compared byte for byte. 3: payments whose
// result is unknown (CONFIRMING orders) and one refund record (seckill_refund) per payment owed
// back. 4: the reservation cache's generation (seckill_stock.cache_epoch, every generation an
// activity had in seckill_cache_epoch, the highest reservation sequence written in
// cache_seq) and the generation each stock release belongs to. 5: payments from the channels
// (orders carry their amount, channel and deadlines; payments their amount; applied
// notifications), reservation sequence numbers unique per generation, indexes by activity.
// A database without seckill_schema but with seckill_request is from before (version 1: keyed
// by request id).
inline constexpr int kOrderSchemaVersion = 5;

// The order store's tables, as one script for the dialect. Idempotent (IF NOT EXISTS).
// Constraints carry the invariants: one order per (user, activity, sku), one decision per
// (user, activity, sku, request id), one payment record per (channel, transaction), one refund
// record per payment owed back, one stock release per order, one order per reservation
// sequence number of a cache generation, one application per channel notification.
std::string OrderSchemaSql(storage::SqlDialect dialect);

}  // namespace ferry::seckill
