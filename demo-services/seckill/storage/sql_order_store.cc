#include "storage/sql_order_store.h"

#include "storage/order_schema.h"

namespace ferry::seckill {

using storage::AsInt;
using storage::AsText;
using storage::SqlConnection;
using storage::SqlConnectionPool;
using storage::SqlDialect;
using storage::SqlRow;

namespace {

constexpr const char* kActivityColumns =
    "a.activity_id, a.sku_id, a.name, a.initial_stock, a.start_time_ms, a.end_time_ms,"
    " a.price_cents, a.pay_timeout_s, a.is_open, s.remaining, s.cache_epoch, s.cache_seq";

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
  return a;
}

OrderState ParseOrderState(const std::string& text) {
  if (text == "PAID") return OrderState::kPaid;
  if (text == "CONFIRMING") return OrderState::kConfirming;
  if (text == "CANCELLED") return OrderState::kCancelled;
  return OrderState::kUnpaid;
}

Status NotFoundOrder(int64_t order_no) {
  return Status(StatusCode::NOT_FOUND, "no order " + std::to_string(order_no));
}

Status OrderExists(SqlConnection& db, int64_t order_no) {
  std::vector<SqlRow> rows;
  if (Status s = db.Query("SELECT 1 FROM seckill_order WHERE order_no = ?", {order_no}, &rows);
      !s.ok()) {
    return s;
  }
  return rows.empty() ? NotFoundOrder(order_no) : Status::Ok();
}

// seckill_payment.outcome: what is known of a payment.
constexpr const char* kPaymentPaid = "PAID";
constexpr const char* kPaymentRefundRequired = "REFUND_REQUIRED";
constexpr const char* kPaymentUnknown = "UNKNOWN";
constexpr const char* kPaymentFailed = "FAILED";

PaymentResult PaymentResultOf(const std::string& outcome) {
  if (outcome == kPaymentPaid) return PaymentResult::kAlreadyPaid;
  if (outcome == kPaymentUnknown) return PaymentResult::kPendingConfirmation;
  if (outcome == kPaymentFailed) return PaymentResult::kNotPaid;
  return PaymentResult::kRefundRequired;
}

// Records a failed decision under the request id so that it is replayed, not re-decided.
Status RecordFailure(SqlConnection& db, const OrderDraft& d, const char* reason) {
  return db.Execute(
      "INSERT INTO seckill_request (request_id, activity_id, sku_id, user_id, created, order_no,"
      " reason) VALUES (?, ?, ?, ?, 0, 0, ?)",
      {d.request_id, d.activity_id, d.sku_id, d.user_id, std::string(reason)});
}

}  // namespace

std::string_view OrderStateName(OrderState state) {
  switch (state) {
    case OrderState::kUnpaid:
      return "UNPAID";
    case OrderState::kConfirming:
      return "CONFIRMING";
    case OrderState::kPaid:
      return "PAID";
    case OrderState::kCancelled:
      return "CANCELLED";
  }
  return "UNPAID";
}

Status SqlOrderStore::WithConnection(const Body& body) {
  std::unique_ptr<SqlConnectionPool::Lease> lease;
  if (Status s = pool_->Acquire(&lease); !s.ok()) return s;
  return lease->Check(body(**lease));
}

Status SqlOrderStore::InTransaction(const Body& body) { return pool_->InTransaction(body); }

Status SqlOrderStore::InSnapshot(const Body& body) {
  return WithConnection([&](SqlConnection& db) {
    if (Status s = db.BeginSnapshot(); !s.ok()) return s;
    Status s = body(db);
    if (s.ok()) return db.Commit();
    db.Rollback();
    return s;
  });
}

Status SqlOrderStore::Initialize() {
  return WithConnection([](SqlConnection& db) {
    std::vector<SqlRow> rows;
    if (db.Query("SELECT MAX(version) FROM seckill_schema", {}, &rows).ok()) {
      const int64_t version = rows.empty() ? 0 : AsInt(rows[0][0]);
      if (version != 0 && version != kOrderSchemaVersion) {
        // Version 2 recorded refunds owed only as payment outcomes, with no refund record to
        // make them refunded once; inventing those records would hide which were paid back.
        // Version 3 kept no cache generation: which of its queued stock releases a cache loaded
        // from its stock already counts cannot be told afterwards.
        return Status(StatusCode::FAILED_PRECONDITION,
                      "seckill database: schema version " + std::to_string(version) +
                          ", this server knows " + std::to_string(kOrderSchemaVersion) +
                          "; settle its sales and refunds with the server that wrote it, then "
                          "drop the seckill_* tables, or configure a new database "
                          "(service.embedded.path, service.mariadb.database)");
      }
    } else if (db.Query("SELECT COUNT(*) FROM seckill_request", {}, &rows).ok()) {
      // Its decisions are keyed by request id alone: rekeying them would have to guess the
      // scope of ids that several buyers shared.
      return Status(StatusCode::FAILED_PRECONDITION,
                    "seckill database: seckill_request is keyed by request id alone (a database "
                    "from before schema version 2); drop the seckill_* tables once its sales are "
                    "settled, or configure a new database (service.embedded.path, "
                    "service.mariadb.database)");
    }
    return db.ExecuteScript(OrderSchemaSql(db.dialect()));
  });
}

Status SqlOrderStore::CreateActivity(ActivityRecord* a) {
  return InTransaction([&](SqlConnection& db) {
    Status s = db.Execute(
        "INSERT INTO seckill_activity (sku_id, name, initial_stock, start_time_ms, end_time_ms,"
        " price_cents, pay_timeout_s, is_open) VALUES (?, ?, ?, ?, ?, ?, ?, 0)",
        {a->sku_id, a->name, a->initial_stock, a->start_time_ms, a->end_time_ms, a->price_cents,
         static_cast<int64_t>(a->pay_timeout_s)});
    if (!s.ok()) return s;
    std::vector<SqlRow> rows;
    s = db.Query(db.dialect() == SqlDialect::kSqlite ? "SELECT last_insert_rowid()"
                                                     : "SELECT LAST_INSERT_ID()",
                 {}, &rows);
    if (!s.ok()) return s;
    a->activity_id = AsInt(rows.at(0).at(0));
    a->open = false;
    a->remaining_stock = a->initial_stock;
    return db.Execute("INSERT INTO seckill_stock (activity_id, sku_id, remaining) VALUES (?, ?, ?)",
                      {a->activity_id, a->sku_id, a->initial_stock});
  });
}

Status SqlOrderStore::GetActivity(int64_t activity_id, ActivityRecord* out) {
  return WithConnection([&](SqlConnection& db) {
    std::vector<SqlRow> rows;
    Status s = db.Query(std::string("SELECT ") + kActivityColumns +
                            " FROM seckill_activity a JOIN seckill_stock s"
                            " ON s.activity_id = a.activity_id AND s.sku_id = a.sku_id"
                            " WHERE a.activity_id = ?",
                        {activity_id}, &rows);
    if (!s.ok()) return s;
    if (rows.empty()) {
      return Status(StatusCode::NOT_FOUND, "no activity " + std::to_string(activity_id));
    }
    *out = ActivityFromRow(rows[0]);
    return Status::Ok();
  });
}

Status SqlOrderStore::MarkOpen(int64_t activity_id) {
  return WithConnection([&](SqlConnection& db) {
    return db.Execute("UPDATE seckill_activity SET is_open = 1 WHERE activity_id = ?",
                      {activity_id});
  });
}

Status SqlOrderStore::BeginCacheEpoch(int64_t activity_id, int64_t sku_id, int64_t epoch,
                                      const std::vector<RequestScope>& reservations,
                                      CacheEpochBase* out) {
  return InTransaction([&](SqlConnection& db) {
    *out = CacheEpochBase{};
    // The stock row's lock orders this against every order write and cancellation: each one
    // either committed before (in the stock read and, for a write, its decision read below) or
    // commits after (in neither), so the cache gets each unit exactly once.
    std::vector<SqlRow> rows;
    Status s = db.Query(std::string("SELECT remaining FROM seckill_stock WHERE activity_id = ? AND"
                                    " sku_id = ?") +
                            (db.dialect() == SqlDialect::kMariaDb ? " FOR UPDATE" : ""),
                        {activity_id, sku_id}, &rows);
    if (!s.ok()) return s;
    if (rows.empty()) {
      return Status(StatusCode::NOT_FOUND, "no activity " + std::to_string(activity_id));
    }
    out->remaining_stock = AsInt(rows[0][0]);
    out->undecided.reserve(reservations.size());
    for (const RequestScope& r : reservations) {
      rows.clear();
      s = db.Query(
          "SELECT 1 FROM seckill_request WHERE user_id = ? AND activity_id = ? AND sku_id = ?"
          " AND request_id = ?",
          {r.user_id, r.activity_id, r.sku_id, r.request_id}, &rows);
      if (!s.ok()) return s;
      out->undecided.push_back(rows.empty());
    }
    s = db.Execute(
        "UPDATE seckill_stock SET cache_epoch = ?, cache_seq = 0 WHERE activity_id = ? AND"
        " sku_id = ?",
        {epoch, activity_id, sku_id});
    if (!s.ok()) return s;
    return db.Execute(
        "INSERT INTO seckill_cache_epoch (activity_id, sku_id, epoch) VALUES (?, ?, ?)",
        {activity_id, sku_id, epoch});
  });
}

Status SqlOrderStore::KnowsCacheEpoch(int64_t activity_id, int64_t sku_id, int64_t epoch,
                                      bool* known) {
  return WithConnection([&](SqlConnection& db) {
    std::vector<SqlRow> rows;
    Status s = db.Query(
        "SELECT 1 FROM seckill_cache_epoch WHERE activity_id = ? AND sku_id = ? AND epoch = ?",
        {activity_id, sku_id, epoch}, &rows);
    *known = !rows.empty();
    return s;
  });
}

Status SqlOrderStore::ListOpenActivities(int64_t after_ms, std::vector<ActivityRecord>* out) {
  return WithConnection([&](SqlConnection& db) {
    std::vector<SqlRow> rows;
    Status s = db.Query(std::string("SELECT ") + kActivityColumns +
                            " FROM seckill_activity a JOIN seckill_stock s"
                            " ON s.activity_id = a.activity_id AND s.sku_id = a.sku_id"
                            " WHERE a.is_open = 1 AND a.end_time_ms > ?",
                        {after_ms}, &rows);
    for (const SqlRow& row : rows) out->push_back(ActivityFromRow(row));
    return s;
  });
}

Status SqlOrderStore::ListBuyers(int64_t activity_id, int64_t sku_id,
                                 std::vector<std::string>* out) {
  return WithConnection([&](SqlConnection& db) {
    std::vector<SqlRow> rows;
    Status s = db.Query("SELECT user_id FROM seckill_order WHERE activity_id = ? AND sku_id = ?",
                        {activity_id, sku_id}, &rows);
    for (const SqlRow& row : rows) out->push_back(AsText(row[0]));
    return s;
  });
}

Status SqlOrderStore::PlaceOrder(const OrderDraft& d, PlaceResult* result) {
  return InTransaction([&](SqlConnection& db) {
    *result = PlaceResult{};
    std::vector<SqlRow> rows;
    Status s = db.Query(
        "SELECT created, order_no, reason FROM seckill_request"
        " WHERE user_id = ? AND activity_id = ? AND sku_id = ? AND request_id = ?",
        {d.user_id, d.activity_id, d.sku_id, d.request_id}, &rows);
    if (!s.ok()) return s;
    if (!rows.empty()) {
      result->replayed = true;
      result->order_no = AsInt(rows[0][1]);
      if (AsInt(rows[0][0]) != 0) {
        result->outcome = PlaceOutcome::kCreated;
      } else {
        result->outcome = AsText(rows[0][2]) == kReasonSoldOut ? PlaceOutcome::kSoldOut
                                                               : PlaceOutcome::kAlreadyJoined;
      }
      return Status::Ok();
    }
    s = db.Query(
        "SELECT order_no FROM seckill_order WHERE user_id = ? AND activity_id = ? AND sku_id = ?",
        {d.user_id, d.activity_id, d.sku_id}, &rows);
    if (!s.ok()) return s;
    if (!rows.empty()) {
      result->outcome = PlaceOutcome::kAlreadyJoined;
      return RecordFailure(db, d, kReasonAlreadyJoined);
    }
    int64_t taken = 0;
    // An order of the current cache generation raises its written high-water mark.
    s = db.Execute(
        "UPDATE seckill_stock SET remaining = remaining - 1,"
        " cache_seq = CASE WHEN cache_epoch = ? AND cache_seq < ? THEN ? ELSE cache_seq END"
        " WHERE activity_id = ? AND sku_id = ? AND remaining > 0",
        {d.cache_epoch, d.cache_seq, d.cache_seq, d.activity_id, d.sku_id}, &taken);
    if (!s.ok()) return s;
    if (taken == 0) {
      result->outcome = PlaceOutcome::kSoldOut;
      return RecordFailure(db, d, kReasonSoldOut);
    }
    // A concurrent order of the same user or request fails these with ALREADY_EXISTS; the
    // retry then replays or answers kAlreadyJoined, and the rollback returns the unit.
    s = db.Execute(
        "INSERT INTO seckill_order (order_no, activity_id, sku_id, user_id, request_id, state,"
        " created_ms, pay_deadline_ms) VALUES (?, ?, ?, ?, ?, 'UNPAID', ?, ?)",
        {d.order_no, d.activity_id, d.sku_id, d.user_id, d.request_id, d.created_ms,
         d.pay_deadline_ms});
    if (!s.ok()) return s;
    result->outcome = PlaceOutcome::kCreated;
    result->order_no = d.order_no;
    return db.Execute(
        "INSERT INTO seckill_request (request_id, activity_id, sku_id, user_id, created,"
        " order_no, reason) VALUES (?, ?, ?, ?, 1, ?, '')",
        {d.request_id, d.activity_id, d.sku_id, d.user_id, d.order_no});
  });
}

Status SqlOrderStore::FailRequest(const RequestScope& scope, const std::string& reason,
                                  RequestRecord* decided) {
  if (scope.user_id.empty() || scope.request_id.empty() || scope.activity_id == 0) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "failing a request needs its user, activity, sku and request id");
  }
  if (reason.empty() || reason.size() > 32) {
    return Status(StatusCode::INVALID_ARGUMENT, "a failure's reason must be 1..32 bytes");
  }
  return InTransaction([&](SqlConnection& db) {
    std::vector<SqlRow> rows;
    Status s = db.Query(
        "SELECT created, order_no, reason FROM seckill_request"
        " WHERE user_id = ? AND activity_id = ? AND sku_id = ? AND request_id = ?",
        {scope.user_id, scope.activity_id, scope.sku_id, scope.request_id}, &rows);
    if (!s.ok()) return s;
    if (!rows.empty()) {
      *decided = RequestRecord{.created = AsInt(rows[0][0]) != 0,
                               .order_no = AsInt(rows[0][1]),
                               .reason = AsText(rows[0][2])};
      return Status::Ok();
    }
    // A concurrent PlaceOrder of the request makes this ALREADY_EXISTS; the retry reads it.
    s = RecordFailure(db,
                      OrderDraft{.activity_id = scope.activity_id,
                                 .sku_id = scope.sku_id,
                                 .user_id = scope.user_id,
                                 .request_id = scope.request_id},
                      reason.c_str());
    if (!s.ok()) return s;
    *decided = RequestRecord{.created = false, .order_no = 0, .reason = reason};
    return Status::Ok();
  });
}

Status SqlOrderStore::GetRequest(const RequestScope& scope, RequestRecord* out) {
  return WithConnection([&](SqlConnection& db) {
    std::string sql = "SELECT created, order_no, reason FROM seckill_request WHERE request_id = ?";
    std::vector<storage::SqlValue> params{scope.request_id};
    if (!scope.user_id.empty()) {
      sql += " AND user_id = ?";
      params.emplace_back(scope.user_id);
    }
    if (scope.activity_id != 0) {
      sql += " AND activity_id = ? AND sku_id = ?";
      params.emplace_back(scope.activity_id);
      params.emplace_back(scope.sku_id);
    }
    sql += " LIMIT 2";
    std::vector<SqlRow> rows;
    if (Status s = db.Query(sql, params, &rows); !s.ok()) return s;
    if (rows.empty()) {
      return Status(StatusCode::NOT_FOUND, "request " + scope.request_id + " unknown");
    }
    if (rows.size() > 1) {
      return Status(StatusCode::INVALID_ARGUMENT,
                    "request " + scope.request_id +
                        " was sent by more than one buyer or in more than one activity; give "
                        "user_id, activity_id and sku_id");
    }
    out->created = AsInt(rows[0][0]) != 0;
    out->order_no = AsInt(rows[0][1]);
    out->reason = AsText(rows[0][2]);
    return Status::Ok();
  });
}

Status SqlOrderStore::GetOrder(int64_t order_no, OrderRecord* out) {
  return WithConnection([&](SqlConnection& db) {
    std::vector<SqlRow> rows;
    Status s = db.Query(
        "SELECT order_no, activity_id, sku_id, user_id, request_id, state, created_ms,"
        " pay_deadline_ms FROM seckill_order WHERE order_no = ?",
        {order_no}, &rows);
    if (!s.ok()) return s;
    if (rows.empty()) return NotFoundOrder(order_no);
    const SqlRow& r = rows[0];
    *out = OrderRecord{AsInt(r[0]),  AsInt(r[1]),  AsInt(r[2]),
                       AsText(r[3]), AsText(r[4]), ParseOrderState(AsText(r[5])),
                       AsInt(r[6]),  AsInt(r[7])};
    return Status::Ok();
  });
}

Status SqlOrderStore::Pay(int64_t order_no, const std::string& channel,
                          const std::string& channel_txn_id, ChannelReport report,
                          PaymentResult* outcome) {
  return InTransaction([&](SqlConnection& db) {
    std::vector<SqlRow> rows;
    // The payment row is locked (SQLite's write transaction holds the whole database): two
    // reports of one unknown payment settle it once, and the second reads that settlement
    // rather than paying the order again and owing the money back.
    const char* lock = db.dialect() == SqlDialect::kMariaDb ? " FOR UPDATE" : "";
    Status s =
        db.Query(std::string("SELECT order_no, outcome FROM seckill_payment WHERE channel = ? AND"
                             " channel_txn_id = ?") +
                     lock,
                 {channel, channel_txn_id}, &rows);
    if (!s.ok()) return s;
    const bool recorded = !rows.empty();
    if (recorded) {
      if (AsInt(rows[0][0]) != order_no) {
        return Status(StatusCode::INVALID_ARGUMENT,
                      "transaction " + channel + "/" + channel_txn_id + " paid another order");
      }
      // A settled result is kept: only a payment still unknown takes a new report.
      const std::string earlier = AsText(rows[0][1]);
      if (earlier != kPaymentUnknown || report == ChannelReport::kUnknown) {
        *outcome = PaymentResultOf(earlier);
        return Status::Ok();
      }
    }
    std::string settled;
    switch (report) {
      case ChannelReport::kSucceeded: {
        int64_t paid = 0;
        s = db.Execute(
            "UPDATE seckill_order SET state = 'PAID'"
            " WHERE order_no = ? AND state IN ('UNPAID', 'CONFIRMING')",
            {order_no}, &paid);
        if (!s.ok()) return s;
        if (paid == 0 && !(s = OrderExists(db, order_no)).ok()) return s;
        settled = paid ? kPaymentPaid : kPaymentRefundRequired;
        if (!paid) {
          // The money is owed back: one refund record per payment, made refunded once.
          s = db.Execute(
              "INSERT INTO seckill_refund (channel, channel_txn_id, order_no, refund_id)"
              " VALUES (?, ?, ?, '')",
              {channel, channel_txn_id, order_no});
          if (!s.ok()) return s;
        }
        break;
      }
      case ChannelReport::kUnknown: {
        int64_t waiting = 0;
        s = db.Execute(
            "UPDATE seckill_order SET state = 'CONFIRMING' WHERE order_no = ? AND state = 'UNPAID'",
            {order_no}, &waiting);
        if (!s.ok()) return s;
        if (waiting == 0 && !(s = OrderExists(db, order_no)).ok()) return s;
        settled = kPaymentUnknown;
        break;
      }
      case ChannelReport::kFailed:
        if (!recorded && !(s = OrderExists(db, order_no)).ok()) return s;
        settled = kPaymentFailed;
        break;
    }
    s = recorded ? db.Execute(
                       "UPDATE seckill_payment SET outcome = ? WHERE channel = ? AND"
                       " channel_txn_id = ?",
                       {settled, channel, channel_txn_id})
                 : db.Execute(
                       "INSERT INTO seckill_payment (channel, channel_txn_id, order_no, outcome)"
                       " VALUES (?, ?, ?, ?)",
                       {channel, channel_txn_id, order_no, settled});
    if (!s.ok()) return s;
    // Settled now: PAID is this payment's doing, the rest read as recorded.
    *outcome = settled == kPaymentPaid ? PaymentResult::kPaid : PaymentResultOf(settled);
    if (report != ChannelReport::kFailed) return Status::Ok();
    // The order waited for this payment; with no other payment unknown it is open again, and
    // the pay timeout closes it if its deadline has passed.
    rows.clear();
    s = db.Query("SELECT COUNT(*) FROM seckill_payment WHERE order_no = ? AND outcome = ?",
                 {order_no, std::string(kPaymentUnknown)}, &rows);
    if (!s.ok()) return s;
    if (AsInt(rows.at(0).at(0)) != 0) return Status::Ok();
    return db.Execute(
        "UPDATE seckill_order SET state = 'UNPAID' WHERE order_no = ? AND state = 'CONFIRMING'",
        {order_no});
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
      return Status::Ok();
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

Status SqlOrderStore::CancelUnpaid(int64_t order_no, CancelResult* result) {
  return InTransaction([&](SqlConnection& db) {
    *result = CancelResult{};
    int64_t changed = 0;
    Status s = db.Execute(
        "UPDATE seckill_order SET state = 'CANCELLED' WHERE order_no = ? AND state = 'UNPAID'",
        {order_no}, &changed);
    if (!s.ok()) return s;
    std::vector<SqlRow> rows;
    s = db.Query("SELECT activity_id, sku_id, state FROM seckill_order WHERE order_no = ?",
                 {order_no}, &rows);
    if (!s.ok()) return s;
    if (rows.empty()) return NotFoundOrder(order_no);
    result->state = ParseOrderState(AsText(rows[0][2]));
    if (changed == 0) return Status::Ok();
    result->cancelled = true;
    const int64_t activity_id = AsInt(rows[0][0]);
    const int64_t sku_id = AsInt(rows[0][1]);
    s = db.Execute(
        "UPDATE seckill_stock SET remaining = remaining + 1 WHERE activity_id = ? AND sku_id = ?",
        {activity_id, sku_id});
    if (!s.ok()) return s;
    // Read after the update, under the stock row's lock: a preheat starting a generation either
    // read this unit in its stock (and the release belongs to the generation before) or not.
    rows.clear();
    s = db.Query("SELECT cache_epoch FROM seckill_stock WHERE activity_id = ? AND sku_id = ?",
                 {activity_id, sku_id}, &rows);
    if (!s.ok()) return s;
    result->cache_epoch = AsInt(rows.at(0).at(0));
    // The primary key makes the release happen once even if this transaction is replayed.
    return db.Execute(
        "INSERT INTO seckill_stock_release (order_no, activity_id, sku_id, cache_epoch,"
        " cache_released) VALUES (?, ?, ?, ?, 0)",
        {order_no, activity_id, sku_id, result->cache_epoch});
  });
}

Status SqlOrderStore::ListExpiredUnpaid(int64_t now_ms, int limit, std::vector<int64_t>* out) {
  return WithConnection([&](SqlConnection& db) {
    std::vector<SqlRow> rows;
    Status s = db.Query(
        "SELECT order_no FROM seckill_order WHERE state = 'UNPAID' AND pay_deadline_ms <= ?"
        " ORDER BY pay_deadline_ms LIMIT ?",
        {now_ms, static_cast<int64_t>(limit)}, &rows);
    for (const SqlRow& row : rows) out->push_back(AsInt(row[0]));
    return s;
  });
}

Status SqlOrderStore::ListPendingCacheReleases(int limit, std::vector<PendingCacheRelease>* out) {
  return WithConnection([&](SqlConnection& db) {
    std::vector<SqlRow> rows;
    Status s = db.Query(
        "SELECT r.order_no, r.activity_id, r.sku_id, r.cache_epoch, s.cache_epoch"
        " FROM seckill_stock_release r JOIN seckill_stock s"
        " ON s.activity_id = r.activity_id AND s.sku_id = r.sku_id"
        " WHERE r.cache_released = 0 LIMIT ?",
        {static_cast<int64_t>(limit)}, &rows);
    for (const SqlRow& row : rows) {
      out->push_back(PendingCacheRelease{AsInt(row[0]), AsInt(row[1]), AsInt(row[2]), AsInt(row[3]),
                                         AsInt(row[4])});
    }
    return s;
  });
}

Status SqlOrderStore::MarkCacheReleased(int64_t order_no) {
  return WithConnection([&](SqlConnection& db) {
    return db.Execute("UPDATE seckill_stock_release SET cache_released = 1 WHERE order_no = ?",
                      {order_no});
  });
}

Status SqlOrderStore::Count(int64_t activity_id, int64_t sku_id, StoreCounts* out) {
  // One snapshot for every count: an order committed between two of the reads would otherwise
  // show as stock and order counts that do not add up.
  return InSnapshot([&](SqlConnection& db) {
    *out = StoreCounts{};
    std::vector<SqlRow> rows;
    Status s = db.Query(
        "SELECT remaining, cache_epoch, cache_seq FROM seckill_stock WHERE activity_id = ? AND"
        " sku_id = ?",
        {activity_id, sku_id}, &rows);
    if (!s.ok()) return s;
    if (rows.empty()) {
      return Status(StatusCode::NOT_FOUND, "no activity " + std::to_string(activity_id));
    }
    out->remaining_stock = AsInt(rows[0][0]);
    out->cache_epoch = AsInt(rows[0][1]);
    out->cache_seq = AsInt(rows[0][2]);
    rows.clear();
    s = db.Query(
        "SELECT COUNT(*) FROM seckill_stock_release WHERE activity_id = ? AND sku_id = ?"
        " AND cache_epoch = ? AND cache_released = 0",
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
