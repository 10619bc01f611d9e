#include "storage/sql_order_rows.h"
#include "storage/sql_order_store.h"

// SqlOrderStore's deadlines: closing open orders, the units they return, and what is due.
namespace ferry::seckill {

using storage::AsInt;
using storage::SqlConnection;
using storage::SqlRow;

namespace {

int64_t DeadlineOf(const OrderRecord& order) {
  return order.state == OrderState::kConfirming ? order.confirm_deadline_ms : order.pay_deadline_ms;
}

}  // namespace

Status SqlOrderStore::CloseOrder(int64_t order_no, const std::vector<OrderState>& from,
                                 int64_t due_ms, CancelResult* result) {
  return InTransaction([&](SqlConnection& db) {
    *result = CancelResult{};
    OrderRecord order;
    // Locked, so that the state and deadline read here are the ones the update replaces: a
    // payment applied meanwhile waits, then finds the order closed (and owes the money back).
    if (Status s = LockOrder(db, order_no, &order); !s.ok()) return s;
    result->state = order.state;
    bool allowed = false;
    for (OrderState state : from) allowed = allowed || state == order.state;
    if (!allowed || (due_ms > 0 && DeadlineOf(order) > due_ms)) return Status::Ok();
    Status s =
        db.Execute("UPDATE seckill_order SET state = 'CANCELLED' WHERE order_no = ?", {order_no});
    if (!s.ok()) return s;
    result->cancelled = true;
    result->state = OrderState::kCancelled;
    return ReturnUnit(db, order, &result->cache_epoch);
  });
}

Status SqlOrderStore::AwaitConfirmation(int64_t order_no, int64_t check_at_ms,
                                        int64_t confirm_deadline_ms) {
  return InTransaction([&](SqlConnection& db) {
    // The deadline first: MariaDB assigns left to right, so a CASE after `state = ...` would
    // read the new state.
    return db.Execute(
        "UPDATE seckill_order SET confirm_deadline_ms = CASE WHEN state = 'CONFIRMING'"
        " THEN confirm_deadline_ms ELSE ? END, state = 'CONFIRMING', check_at_ms = ?"
        " WHERE order_no = ? AND state IN ('PAYING', 'CONFIRMING')",
        {confirm_deadline_ms, check_at_ms, order_no});
  });
}

Status SqlOrderStore::ListDueOrders(int64_t now_ms, int limit, std::vector<OrderRecord>* out) {
  return WithConnection([&](SqlConnection& db) {
    std::vector<SqlRow> rows;
    // One range per open state on (state, check_at_ms).
    Status s = db.Query(std::string("SELECT ") + kOrderColumns +
                            " FROM seckill_order WHERE state IN ('UNPAID', 'PAYING', 'CONFIRMING')"
                            " AND check_at_ms <= ? ORDER BY check_at_ms LIMIT ?",
                        {now_ms, static_cast<int64_t>(limit)}, &rows);
    for (const SqlRow& row : rows) out->push_back(OrderFromRow(row));
    return s;
  });
}

Status SqlOrderStore::ListPendingCacheReleases(int limit, std::vector<PendingCacheRelease>* out) {
  return WithConnection([&](SqlConnection& db) {
    std::vector<SqlRow> rows;
    Status s = db.Query(
        "SELECT r.order_no, r.activity_id, r.sku_id, r.cache_epoch, s.cache_epoch"
        " FROM seckill_stock_release r JOIN seckill_stock s"
        " ON s.activity_id = r.activity_id AND s.sku_id = r.sku_id LIMIT ?",
        {static_cast<int64_t>(limit)}, &rows);
    for (const SqlRow& row : rows) {
      out->push_back(PendingCacheRelease{AsInt(row[0]), AsInt(row[1]), AsInt(row[2]), AsInt(row[3]),
                                         AsInt(row[4])});
    }
    return s;
  });
}

Status SqlOrderStore::ForgetCacheRelease(int64_t order_no) {
  return WithConnection([&](SqlConnection& db) {
    return db.Execute("DELETE FROM seckill_stock_release WHERE order_no = ?", {order_no});
  });
}

}  // namespace ferry::seckill
