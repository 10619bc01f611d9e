#include "storage/sql_order_rows.h"

namespace ferry::seckill {

using storage::AsInt;
using storage::AsText;
using storage::SqlConnection;
using storage::SqlDialect;
using storage::SqlRow;

ActivityRecord ActivityFromRow(const SqlRow& row) {
  ActivityRecord a;
  a.activity_id = AsInt(row[0]);
  a.sku_id = AsInt(row[1]);
  a.name = AsText(row[2]);
  a.initial_stock = AsInt(row[3]);
  a.start_time_ms = AsInt(row[4]);
  a.end_time_ms = AsInt(row[5]);
  a.price_cents = AsInt(row[6]);
  a.pay_timeout_s = static_cast<uint32_t>(AsInt(row[7]));
  a.open = AsInt(row[8]) != 0;
  a.remaining_stock = AsInt(row[9]);
  a.cache_epoch = AsInt(row[10]);
  a.cache_seq = AsInt(row[11]);
  a.cache_server = AsText(row[12]);
  return a;
}

OrderRecord OrderFromRow(const SqlRow& r) {
  OrderRecord o;
  o.order_no = AsInt(r[0]);
  o.activity_id = AsInt(r[1]);
  o.sku_id = AsInt(r[2]);
  o.user_id = AsText(r[3]);
  o.request_id = AsText(r[4]);
  o.state = ParseOrderState(AsText(r[5]));
  o.created_ms = AsInt(r[6]);
  o.pay_deadline_ms = AsInt(r[7]);
  o.amount_cents = AsInt(r[8]);
  o.currency = AsText(r[9]);
  o.channel = AsText(r[10]);
  o.payment_id = AsText(r[11]);
  o.channel_txn_id = AsText(r[12]);
  o.check_at_ms = AsInt(r[13]);
  o.confirm_deadline_ms = AsInt(r[14]);
  return o;
}

OrderState ParseOrderState(const std::string& text) {
  if (text == "PAID") return OrderState::kPaid;
  if (text == "PAYING") return OrderState::kPaying;
  if (text == "CONFIRMING") return OrderState::kConfirming;
  if (text == "CANCELLED") return OrderState::kCancelled;
  return OrderState::kUnpaid;
}

std::string_view OrderStateName(OrderState state) {
  switch (state) {
    case OrderState::kUnpaid:
      return "UNPAID";
    case OrderState::kPaying:
      return "PAYING";
    case OrderState::kConfirming:
      return "CONFIRMING";
    case OrderState::kPaid:
      return "PAID";
    case OrderState::kCancelled:
      return "CANCELLED";
  }
  return "UNPAID";
}

Status NotFoundOrder(int64_t order_no) {
  return Status(StatusCode::NOT_FOUND, "no order " + std::to_string(order_no));
}

const char* ForUpdate(const SqlConnection& db) {
  return db.dialect() == SqlDialect::kMariaDb ? " FOR UPDATE" : "";
}

Status LockOrder(SqlConnection& db, int64_t order_no, OrderRecord* out) {
  std::vector<SqlRow> rows;
  Status s = db.Query(std::string("SELECT ") + kOrderColumns +
                          " FROM seckill_order WHERE order_no = ?" + ForUpdate(db),
                      {order_no}, &rows);
  if (!s.ok()) return s;
  if (rows.empty()) return NotFoundOrder(order_no);
  *out = OrderFromRow(rows[0]);
  return Status::Ok();
}

Status ReturnUnit(SqlConnection& db, const OrderRecord& order, int64_t* cache_epoch) {
  Status s = db.Execute(
      "UPDATE seckill_stock SET remaining = remaining + 1 WHERE activity_id = ? AND sku_id = ?",
      {order.activity_id, order.sku_id});
  if (!s.ok()) return s;
  // Read after the update, under the stock row's lock: a preheat starting a generation either
  // read this unit in its stock (and the release belongs to the generation before) or not.
  std::vector<SqlRow> rows;
  s = db.Query("SELECT cache_epoch FROM seckill_stock WHERE activity_id = ? AND sku_id = ?",
               {order.activity_id, order.sku_id}, &rows);
  if (!s.ok()) return s;
  *cache_epoch = AsInt(rows.at(0).at(0));
  // The primary key makes the release happen once even if this transaction is replayed.
  return db.Execute(
      "INSERT INTO seckill_stock_release (order_no, activity_id, sku_id, cache_epoch)"
      " VALUES (?, ?, ?, ?)",
      {order.order_no, order.activity_id, order.sku_id, *cache_epoch});
}

}  // namespace ferry::seckill
