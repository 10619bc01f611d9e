#include "storage/sql_order_rows.h"
#include "storage/sql_order_store.h"

// SqlOrderStore's payments: what a channel's word does to an order, and refunds.
namespace ferry::seckill {

using storage::AsInt;
using storage::AsText;
using storage::SqlConnection;
using storage::SqlRow;

namespace {

// seckill_payment.outcome: what the money did.
constexpr const char* kPaymentPaid = "PAID";
constexpr const char* kPaymentRefundOwed = "REFUND_OWED";
constexpr const char* kPaymentRefunded = "REFUNDED";

bool IsOpen(OrderState state) {
  return state == OrderState::kUnpaid || state == OrderState::kPaying ||
         state == OrderState::kConfirming;
}

Status InsertPayment(SqlConnection& db, int64_t order_no, const std::string& channel,
                     const ChannelPaymentStatus& p, const char* outcome) {
  return db.Execute(
      "INSERT INTO seckill_payment (channel, channel_txn_id, order_no, amount_cents, currency,"
      " outcome) VALUES (?, ?, ?, ?, ?, ?)",
      {channel, p.channel_txn_id, order_no, p.amount_cents, p.currency, std::string(outcome)});
}

// The money is owed back: one refund record per payment, refunded once.
Status OweRefund(SqlConnection& db, int64_t order_no, const std::string& channel,
                 const ChannelPaymentStatus& p) {
  if (Status s = InsertPayment(db, order_no, channel, p, kPaymentRefundOwed); !s.ok()) return s;
  return db.Execute(
      "INSERT INTO seckill_refund (channel, channel_txn_id, order_no, refund_id)"
      " VALUES (?, ?, ?, '')",
      {channel, p.channel_txn_id, order_no});
}

Status ApplySucceeded(SqlConnection& db, const OrderRecord& order, const std::string& channel,
                      const ChannelPaymentStatus& p, PaymentApplied* out) {
  if (p.amount_cents != order.amount_cents || p.currency != order.currency) {
    out->effect = PaymentEffect::kAmountWrong;
    return OweRefund(db, order.order_no, channel, p);
  }
  if (!IsOpen(order.state)) {
    out->effect = PaymentEffect::kRefundOwed;
    return OweRefund(db, order.order_no, channel, p);
  }
  Status s = db.Execute(
      "UPDATE seckill_order SET state = 'PAID', channel = ?, channel_txn_id = ? WHERE order_no = ?",
      {channel, p.channel_txn_id, order.order_no});
  if (!s.ok()) return s;
  out->effect = PaymentEffect::kPaid;
  out->state = OrderState::kPaid;
  return InsertPayment(db, order.order_no, channel, p, kPaymentPaid);
}

// A refund of a payment the channel has told of (owed back, or the one that paid the order), or
// of one it never told of (its notification lost: recorded as refunded at once).
Status ApplyRefunded(SqlConnection& db, const OrderRecord& order, const std::string& channel,
                     const ChannelPaymentStatus& p, PaymentApplied* out) {
  std::vector<SqlRow> rows;
  Status s = db.Query(std::string("SELECT outcome FROM seckill_payment WHERE channel = ? AND"
                                  " channel_txn_id = ?") +
                          ForUpdate(db),
                      {channel, p.channel_txn_id}, &rows);
  if (!s.ok()) return s;
  out->effect = PaymentEffect::kRefunded;
  if (rows.empty()) {
    if (s = InsertPayment(db, order.order_no, channel, p, kPaymentRefunded); !s.ok()) return s;
    return db.Execute(
        "INSERT INTO seckill_refund (channel, channel_txn_id, order_no, refund_id)"
        " VALUES (?, ?, ?, ?)",
        {channel, p.channel_txn_id, order.order_no, p.refund_id});
  }
  const std::string outcome = AsText(rows[0][0]);
  if (outcome == kPaymentRefunded) {
    out->effect = PaymentEffect::kUnchanged;
    return Status::Ok();
  }
  s = db.Execute("UPDATE seckill_payment SET outcome = ? WHERE channel = ? AND channel_txn_id = ?",
                 {std::string(kPaymentRefunded), channel, p.channel_txn_id});
  if (!s.ok()) return s;
  if (outcome == kPaymentRefundOwed) {
    return db.Execute(
        "UPDATE seckill_refund SET refund_id = ? WHERE channel = ? AND channel_txn_id = ?"
        " AND refund_id = ''",
        {p.refund_id, channel, p.channel_txn_id});
  }
  // The payment that paid the order went back: the sale is undone and its unit returns.
  s = db.Execute(
      "INSERT INTO seckill_refund (channel, channel_txn_id, order_no, refund_id)"
      " VALUES (?, ?, ?, ?)",
      {channel, p.channel_txn_id, order.order_no, p.refund_id});
  if (!s.ok()) return s;
  s = db.Execute("UPDATE seckill_order SET state = 'CANCELLED' WHERE order_no = ?",
                 {order.order_no});
  if (!s.ok()) return s;
  out->closed = true;
  out->state = OrderState::kCancelled;
  return ReturnUnit(db, order, &out->cache_epoch);
}

}  // namespace

Status SqlOrderStore::BeginPayment(int64_t order_no, const std::string& channel,
                                   const std::string& replaced_channel, int64_t now_ms,
                                   OrderRecord* out) {
  return InTransaction([&](SqlConnection& db) {
    Status s = db.Execute(
        "UPDATE seckill_order SET state = 'PAYING', channel = ?, payment_id = ''"
        " WHERE order_no = ? AND pay_deadline_ms > ?"
        " AND (state = 'UNPAID' OR (state = 'PAYING' AND channel = ? AND channel <> ?))",
        {channel, order_no, now_ms, replaced_channel, channel});
    if (!s.ok()) return s;
    return LockOrder(db, order_no, out);
  });
}

Status SqlOrderStore::RecordPaymentId(int64_t order_no, const std::string& channel,
                                      const std::string& payment_id) {
  return InTransaction([&](SqlConnection& db) {
    return db.Execute("UPDATE seckill_order SET payment_id = ? WHERE order_no = ? AND channel = ?",
                      {payment_id, order_no, channel});
  });
}

Status SqlOrderStore::ApplyPayment(int64_t order_no, const std::string& channel,
                                   const ChannelPaymentStatus& payment,
                                   const std::string& notification_id, int64_t now_ms,
                                   PaymentApplied* out) {
  return InTransaction([&](SqlConnection& db) {
    *out = PaymentApplied{};
    OrderRecord order;
    // The order's lock orders this against the closer and every other report of the order.
    if (Status s = LockOrder(db, order_no, &order); !s.ok()) return s;
    out->state = order.state;
    std::vector<SqlRow> rows;
    if (!notification_id.empty()) {
      Status s =
          db.Query("SELECT 1 FROM seckill_notification WHERE channel = ? AND notification_id = ?",
                   {channel, notification_id}, &rows);
      if (!s.ok()) return s;
      if (!rows.empty()) {
        out->effect = PaymentEffect::kReplayed;
        return Status::Ok();
      }
      // A concurrent delivery of the same notification fails this with ALREADY_EXISTS; the
      // retry then reads it as replayed.
      s = db.Execute(
          "INSERT INTO seckill_notification (channel, notification_id, order_no, received_ms)"
          " VALUES (?, ?, ?, ?)",
          {channel, notification_id, order_no, now_ms});
      if (!s.ok()) return s;
    }
    if (payment.state == ChannelPaymentState::kRefunded) {
      return ApplyRefunded(db, order, channel, payment, out);
    }
    if (payment.state != ChannelPaymentState::kSucceeded) return Status::Ok();
    rows.clear();
    Status s =
        db.Query("SELECT order_no FROM seckill_payment WHERE channel = ? AND channel_txn_id = ?",
                 {channel, payment.channel_txn_id}, &rows);
    if (!s.ok()) return s;
    if (!rows.empty()) {
      if (AsInt(rows[0][0]) != order_no) {
        return Status(StatusCode::FAILED_PRECONDITION, "transaction " + channel + "/" +
                                                           payment.channel_txn_id + " paid order " +
                                                           std::to_string(AsInt(rows[0][0])));
      }
      return Status::Ok();  // the same transaction again
    }
    return ApplySucceeded(db, order, channel, payment, out);
  });
}

Status SqlOrderStore::RecordRefund(const std::string& channel, const std::string& channel_txn_id,
                                   const std::string& refund_id, RefundResult* outcome) {
  return InTransaction([&](SqlConnection& db) {
    // Update first: of two refunds racing for one payment, the second sees the first's id.
    int64_t changed = 0;
    Status s = db.Execute(
        "UPDATE seckill_refund SET refund_id = ? WHERE channel = ? AND channel_txn_id = ?"
        " AND refund_id = ''",
        {refund_id, channel, channel_txn_id}, &changed);
    if (!s.ok()) return s;
    std::vector<SqlRow> rows;
    s = db.Query("SELECT refund_id FROM seckill_refund WHERE channel = ? AND channel_txn_id = ?",
                 {channel, channel_txn_id}, &rows);
    if (!s.ok()) return s;
    const std::string payment = channel + "/" + channel_txn_id;
    if (rows.empty()) {
      s = db.Query("SELECT outcome FROM seckill_payment WHERE channel = ? AND channel_txn_id = ?",
                   {channel, channel_txn_id}, &rows);
      if (!s.ok()) return s;
      if (rows.empty()) return Status(StatusCode::NOT_FOUND, "no payment " + payment);
      return Status(StatusCode::FAILED_PRECONDITION,
                    "payment " + payment + " is owed no refund (" + AsText(rows[0][0]) + ")");
    }
    if (changed != 0) {
      *outcome = RefundResult::kRefunded;
      return db.Execute(
          "UPDATE seckill_payment SET outcome = ? WHERE channel = ? AND channel_txn_id = ?",
          {std::string(kPaymentRefunded), channel, channel_txn_id});
    }
    const std::string earlier = AsText(rows[0][0]);
    if (earlier != refund_id) {
      return Status(StatusCode::FAILED_PRECONDITION,
                    "payment " + payment + " was refunded already, as " + earlier);
    }
    *outcome = RefundResult::kAlreadyRefunded;
    return Status::Ok();
  });
}

Status SqlOrderStore::ListRefundsOwed(int limit, std::vector<OwedRefund>* out) {
  return WithConnection([&](SqlConnection& db) {
    std::vector<SqlRow> rows;
    Status s = db.Query(
        "SELECT order_no, channel, channel_txn_id FROM seckill_refund WHERE refund_id = ''"
        " ORDER BY order_no LIMIT ?",
        {static_cast<int64_t>(limit)}, &rows);
    for (const SqlRow& row : rows) {
      out->push_back(OwedRefund{AsInt(row[0]), AsText(row[1]), AsText(row[2])});
    }
    return s;
  });
}

Status SqlOrderStore::ForgetNotifications(int64_t before_ms, int limit, int64_t* removed) {
  return WithConnection([&](SqlConnection& db) {
    // Through the primary keys of a bounded batch: SQLite has no DELETE ... LIMIT by default.
    return db.Execute(
        "DELETE FROM seckill_notification WHERE received_ms < ? AND notification_id IN"
        " (SELECT notification_id FROM (SELECT notification_id FROM seckill_notification"
        " WHERE received_ms < ? LIMIT ?) t)",
        {before_ms, before_ms, static_cast<int64_t>(limit)}, removed);
  });
}

}  // namespace ferry::seckill
