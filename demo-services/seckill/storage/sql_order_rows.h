#pragma once

#include <string>

#include "ferry/storage/sql_connection.h"
#include "storage/order_records.h"

// What SqlOrderStore's statements share: the columns they read and how rows become records.
namespace ferry::seckill {

inline constexpr const char* kActivityColumns =
    "a.activity_id, a.sku_id, a.name, a.initial_stock, a.start_time_ms, a.end_time_ms,"
    " a.price_cents, a.pay_timeout_s, a.is_open, s.remaining, s.cache_epoch, s.cache_seq,"
    " s.cache_server";
ActivityRecord ActivityFromRow(const storage::SqlRow& row);

inline constexpr const char* kOrderColumns =
    "order_no, activity_id, sku_id, user_id, request_id, state, created_ms, pay_deadline_ms,"
    " amount_cents, currency, channel, payment_id, channel_txn_id, check_at_ms,"
    " confirm_deadline_ms";
OrderRecord OrderFromRow(const storage::SqlRow& row);

OrderState ParseOrderState(const std::string& text);

Status NotFoundOrder(int64_t order_no);
// The order, locked for the transaction (SQLite's write transaction holds the whole database);
// NOT_FOUND when there is none.
Status LockOrder(storage::SqlConnection& db, int64_t order_no, OrderRecord* out);
// "FOR UPDATE" on MariaDB, nothing on SQLite (whose write transaction locks everything).
const char* ForUpdate(const storage::SqlConnection& db);

// Returns the closed order's unit: to the stock, and queued for the cache generation current
// under the stock row's lock (*cache_epoch).
Status ReturnUnit(storage::SqlConnection& db, const OrderRecord& order, int64_t* cache_epoch);

}  // namespace ferry::seckill
