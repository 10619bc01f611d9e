#include "storage/sql_payment_store.h"

#include <string>

namespace ferry::paysim {

namespace {

using storage::AsInt;
using storage::AsText;
using storage::SqlConnection;
using storage::SqlRow;
using storage::SqlValue;

constexpr const char* kSchema =
    "CREATE TABLE IF NOT EXISTS paysim_payment ("
    " merchant_id TEXT NOT NULL, order_no INTEGER NOT NULL, payment_id TEXT NOT NULL,"
    " checkout TEXT NOT NULL UNIQUE, amount_cents INTEGER NOT NULL, currency TEXT NOT NULL,"
    " description TEXT NOT NULL, expires_at_ms INTEGER NOT NULL, status TEXT NOT NULL,"
    " channel_txn_id TEXT NOT NULL, refund_id TEXT NOT NULL, created_ms INTEGER NOT NULL,"
    " PRIMARY KEY (merchant_id, order_no));"
    "CREATE TABLE IF NOT EXISTS paysim_delivery ("
    " delivery_id INTEGER PRIMARY KEY AUTOINCREMENT, notification_id TEXT NOT NULL,"
    " merchant_id TEXT NOT NULL, order_no INTEGER NOT NULL, payload BLOB NOT NULL,"
    " signature TEXT NOT NULL, state TEXT NOT NULL, attempts INTEGER NOT NULL,"
    " next_attempt_ms INTEGER NOT NULL, last_error TEXT NOT NULL);"
    "CREATE INDEX IF NOT EXISTS paysim_delivery_due ON paysim_delivery (state, next_attempt_ms);"
    "CREATE INDEX IF NOT EXISTS paysim_delivery_order ON paysim_delivery (merchant_id, order_no);"
    "CREATE INDEX IF NOT EXISTS paysim_delivery_notification ON paysim_delivery (notification_id)";

constexpr const char* kPaymentColumns =
    "SELECT merchant_id, order_no, payment_id, checkout, amount_cents, currency, description,"
    " expires_at_ms, status, channel_txn_id, refund_id, created_ms FROM paysim_payment WHERE ";

constexpr const char* kDeliveryColumns =
    "SELECT delivery_id, notification_id, merchant_id, order_no, payload, signature, state,"
    " attempts, next_attempt_ms, last_error FROM paysim_delivery WHERE ";

PaymentRecord PaymentOf(const SqlRow& r) {
  PaymentRecord p;
  p.merchant_id = AsText(r[0]);
  p.order_no = AsInt(r[1]);
  p.payment_id = AsText(r[2]);
  p.checkout = AsText(r[3]);
  p.amount_cents = AsInt(r[4]);
  p.currency = AsText(r[5]);
  p.description = AsText(r[6]);
  p.expires_at_ms = AsInt(r[7]);
  p.status = PaymentStatusOf(AsText(r[8]));
  p.channel_txn_id = AsText(r[9]);
  p.refund_id = AsText(r[10]);
  p.created_ms = AsInt(r[11]);
  return p;
}

DeliveryState DeliveryStateOf(const std::string& name) {
  if (name == "DELIVERED") return DeliveryState::kDelivered;
  if (name == "GAVE_UP") return DeliveryState::kGaveUp;
  return DeliveryState::kQueued;
}

DeliveryRecord DeliveryOf(const SqlRow& r) {
  DeliveryRecord d;
  d.delivery_id = AsInt(r[0]);
  d.notification_id = AsText(r[1]);
  d.merchant_id = AsText(r[2]);
  d.order_no = AsInt(r[3]);
  d.payload = AsText(r[4]);
  d.signature = AsText(r[5]);
  d.state = DeliveryStateOf(AsText(r[6]));
  d.attempts = AsInt(r[7]);
  d.next_attempt_ms = AsInt(r[8]);
  d.last_error = AsText(r[9]);
  return d;
}

std::string Text(std::string_view s) { return std::string(s); }

}  // namespace

Status SqlPaymentStore::Initialize() {
  std::unique_ptr<storage::SqlConnectionPool::Lease> db;
  if (Status s = pool_->Acquire(&db); !s.ok()) return s;
  return db->Check((*db)->ExecuteScript(kSchema));
}

Status SqlPaymentStore::ReadPayment(SqlConnection& db, const char* where,
                                    const std::vector<SqlValue>& params, PaymentRecord* out) {
  std::vector<SqlRow> rows;
  if (Status s = db.Query(std::string(kPaymentColumns) + where, params, &rows); !s.ok()) return s;
  if (rows.empty()) return Status(StatusCode::NOT_FOUND, "no such payment");
  *out = PaymentOf(rows.front());
  return Status::Ok();
}

Status SqlPaymentStore::CreatePayment(const PaymentRecord& p, PaymentRecord* out, bool* created) {
  return pool_->InTransaction([&](SqlConnection& db) {
    int64_t inserted = 0;
    Status s = db.Execute(
        "INSERT INTO paysim_payment (merchant_id, order_no, payment_id, checkout, amount_cents,"
        " currency, description, expires_at_ms, status, channel_txn_id, refund_id, created_ms)"
        " SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, '', '', ? WHERE NOT EXISTS (SELECT 1 FROM"
        " paysim_payment WHERE merchant_id = ? AND order_no = ?)",
        {p.merchant_id, p.order_no, p.payment_id, p.checkout, p.amount_cents, p.currency,
         p.description, p.expires_at_ms, Text(PaymentStatusName(p.status)), p.created_ms,
         p.merchant_id, p.order_no},
        &inserted);
    if (!s.ok()) return s;
    *created = inserted == 1;
    return ReadPayment(db, "merchant_id = ? AND order_no = ?", {p.merchant_id, p.order_no}, out);
  });
}

Status SqlPaymentStore::GetPayment(const std::string& merchant_id, int64_t order_no,
                                   PaymentRecord* out) {
  std::unique_ptr<storage::SqlConnectionPool::Lease> db;
  if (Status s = pool_->Acquire(&db); !s.ok()) return s;
  Status s = ReadPayment(**db, "merchant_id = ? AND order_no = ?", {merchant_id, order_no}, out);
  return s.code() == StatusCode::NOT_FOUND ? s : db->Check(s);
}

Status SqlPaymentStore::GetPaymentByCheckout(const std::string& checkout, PaymentRecord* out) {
  std::unique_ptr<storage::SqlConnectionPool::Lease> db;
  if (Status s = pool_->Acquire(&db); !s.ok()) return s;
  Status s = ReadPayment(**db, "checkout = ?", {checkout}, out);
  return s.code() == StatusCode::NOT_FOUND ? s : db->Check(s);
}

Status SqlPaymentStore::Transition(const std::string& merchant_id, int64_t order_no,
                                   std::initializer_list<PaymentStatus> from, PaymentStatus to,
                                   const std::string& channel_txn_id, const std::string& refund_id,
                                   bool* changed, PaymentRecord* after) {
  std::string sql =
      "UPDATE paysim_payment SET status = ?, channel_txn_id = ?, refund_id = ?"
      " WHERE merchant_id = ? AND order_no = ? AND status IN (";
  std::vector<SqlValue> params{Text(PaymentStatusName(to)), channel_txn_id, refund_id, merchant_id,
                               order_no};
  for (PaymentStatus f : from) {
    sql += params.size() == 5 ? "?" : ", ?";
    params.emplace_back(Text(PaymentStatusName(f)));
  }
  sql += ")";
  return pool_->InTransaction([&](SqlConnection& db) {
    int64_t affected = 0;
    if (Status s = db.Execute(sql, params, &affected); !s.ok()) return s;
    *changed = affected == 1;
    return ReadPayment(db, "merchant_id = ? AND order_no = ?", {merchant_id, order_no}, after);
  });
}

Status SqlPaymentStore::AddDelivery(const DeliveryRecord& d, int64_t* delivery_id) {
  return pool_->InTransaction([&](SqlConnection& db) {
    if (Status s = db.Execute(
            "INSERT INTO paysim_delivery (notification_id, merchant_id, order_no, payload,"
            " signature, state, attempts, next_attempt_ms, last_error)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            {d.notification_id, d.merchant_id, d.order_no, d.payload, d.signature,
             Text(DeliveryStateName(d.state)), d.attempts, d.next_attempt_ms, d.last_error});
        !s.ok()) {
      return s;
    }
    if (delivery_id == nullptr) return Status::Ok();
    std::vector<SqlRow> rows;
    if (Status s = db.Query("SELECT last_insert_rowid()", {}, &rows); !s.ok()) return s;
    *delivery_id = rows.empty() ? 0 : AsInt(rows.front()[0]);
    return Status::Ok();
  });
}

Status SqlPaymentStore::ReadDeliveries(const char* where, const std::vector<SqlValue>& params,
                                       std::vector<DeliveryRecord>* out) {
  std::unique_ptr<storage::SqlConnectionPool::Lease> db;
  if (Status s = pool_->Acquire(&db); !s.ok()) return s;
  std::vector<SqlRow> rows;
  if (Status s = db->Check((*db)->Query(std::string(kDeliveryColumns) + where, params, &rows));
      !s.ok()) {
    return s;
  }
  out->clear();
  for (const SqlRow& row : rows) out->push_back(DeliveryOf(row));
  return Status::Ok();
}

Status SqlPaymentStore::ListDueDeliveries(int64_t now_ms, int limit,
                                          std::vector<DeliveryRecord>* out) {
  return ReadDeliveries(
      "state = 'QUEUED' AND next_attempt_ms <= ? ORDER BY next_attempt_ms, delivery_id LIMIT ?",
      {now_ms, static_cast<int64_t>(limit)}, out);
}

Status SqlPaymentStore::UpdateDelivery(const DeliveryRecord& d) {
  return pool_->InTransaction([&](SqlConnection& db) {
    return db.Execute(
        "UPDATE paysim_delivery SET state = ?, attempts = ?, next_attempt_ms = ?, last_error = ?"
        " WHERE delivery_id = ?",
        {Text(DeliveryStateName(d.state)), d.attempts, d.next_attempt_ms, d.last_error,
         d.delivery_id});
  });
}

Status SqlPaymentStore::GetNotification(const std::string& notification_id, DeliveryRecord* out) {
  std::vector<DeliveryRecord> found;
  if (Status s = ReadDeliveries("notification_id = ? ORDER BY delivery_id LIMIT 1",
                                {notification_id}, &found);
      !s.ok()) {
    return s;
  }
  if (found.empty()) {
    return Status(StatusCode::NOT_FOUND, "no notification '" + notification_id + "' was sent");
  }
  *out = std::move(found.front());
  return Status::Ok();
}

Status SqlPaymentStore::ListDeliveries(const std::string& merchant_id, int64_t order_no,
                                       std::vector<DeliveryRecord>* out) {
  return ReadDeliveries("merchant_id = ? AND order_no = ? ORDER BY delivery_id",
                        {merchant_id, order_no}, out);
}

}  // namespace ferry::paysim
