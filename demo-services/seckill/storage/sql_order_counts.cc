#include "storage/sql_order_rows.h"
#include "storage/sql_order_store.h"

// SqlOrderStore's counts for the reconciler: set-based, a handful of statements per activity
// whatever its number of orders.
namespace ferry::seckill {

using storage::AsInt;
using storage::AsText;
using storage::SqlConnection;
using storage::SqlRow;

Status SqlOrderStore::Count(int64_t activity_id, int64_t sku_id, StoreCounts* out) {
  // One snapshot for every count: an order committed between two of the reads would otherwise
  // show as stock and order counts that do not add up.
  return InSnapshot([&](SqlConnection& db) {
    *out = StoreCounts{};
    std::vector<SqlRow> rows;
    Status s = db.Query(
        "SELECT remaining, cache_epoch, cache_seq, decided_base FROM seckill_stock"
        " WHERE activity_id = ? AND sku_id = ?",
        {activity_id, sku_id}, &rows);
    if (!s.ok()) return s;
    if (rows.empty()) {
      return Status(StatusCode::NOT_FOUND, "no activity " + std::to_string(activity_id));
    }
    out->remaining_stock = AsInt(rows[0][0]);
    out->cache_epoch = AsInt(rows[0][1]);
    out->cache_seq = AsInt(rows[0][2]);
    out->decided_base = AsInt(rows[0][3]);
    rows.clear();
    s = db.Query(
        "SELECT COUNT(*) FROM seckill_stock_release WHERE activity_id = ? AND sku_id = ?"
        " AND cache_epoch = ?",
        {activity_id, sku_id, out->cache_epoch}, &rows);
    if (!s.ok()) return s;
    out->releases_pending = AsInt(rows.at(0).at(0));
    rows.clear();
    s = db.Query(
        "SELECT state, COUNT(*) FROM seckill_order WHERE activity_id = ? AND sku_id = ?"
        " GROUP BY state",
        {activity_id, sku_id}, &rows);
    if (!s.ok()) return s;
    for (const SqlRow& row : rows) {
      const int64_t n = AsInt(row[1]);
      switch (ParseOrderState(AsText(row[0]))) {
        case OrderState::kUnpaid:
          out->orders_unpaid = n;
          break;
        case OrderState::kPaying:
          out->orders_paying = n;
          break;
        case OrderState::kConfirming:
          out->orders_confirming = n;
          break;
        case OrderState::kPaid:
          out->orders_paid = n;
          break;
        case OrderState::kCancelled:
          out->orders_cancelled = n;
          break;
      }
    }
    rows.clear();
    s = db.Query(
        "SELECT COUNT(*) FROM (SELECT user_id FROM seckill_order WHERE activity_id = ?"
        " AND sku_id = ? GROUP BY user_id HAVING COUNT(*) > 1) t",
        {activity_id, sku_id}, &rows);
    if (!s.ok()) return s;
    out->users_with_two_orders = AsInt(rows.at(0).at(0));
    rows.clear();
    // Paid means the channel said so, for the order's amount.
    s = db.Query(
        "SELECT COUNT(*) FROM seckill_order o WHERE o.activity_id = ? AND o.sku_id = ?"
        " AND o.state = 'PAID' AND NOT EXISTS (SELECT 1 FROM seckill_payment p"
        " WHERE p.order_no = o.order_no AND p.outcome = 'PAID' AND p.channel = o.channel"
        " AND p.channel_txn_id = o.channel_txn_id AND p.amount_cents = o.amount_cents"
        " AND p.currency = o.currency)",
        {activity_id, sku_id}, &rows);
    if (!s.ok()) return s;
    out->paid_without_payment = AsInt(rows.at(0).at(0));
    rows.clear();
    s = db.Query(
        "SELECT r.refund_id = '', COUNT(*) FROM seckill_refund r"
        " JOIN seckill_order o ON o.order_no = r.order_no"
        " WHERE o.activity_id = ? AND o.sku_id = ? GROUP BY r.refund_id = ''",
        {activity_id, sku_id}, &rows);
    if (!s.ok()) return s;
    for (const SqlRow& row : rows) {
      (AsInt(row[0]) != 0 ? out->refunds_required : out->refunds_done) = AsInt(row[1]);
    }
    rows.clear();
    s = db.Query(
        "SELECT created, COUNT(*) FROM seckill_request WHERE activity_id = ? AND sku_id = ?"
        " GROUP BY created",
        {activity_id, sku_id}, &rows);
    for (const SqlRow& row : rows) {
      (AsInt(row[0]) != 0 ? out->requests_created : out->requests_failed) = AsInt(row[1]);
    }
    return s;
  });
}

}  // namespace ferry::seckill
