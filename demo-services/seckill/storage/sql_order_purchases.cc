#include <unordered_set>

#include "ferry/storage/sql_placeholders.h"
#include "storage/sql_order_rows.h"
#include "storage/sql_order_store.h"

// SqlOrderStore's purchase decisions: orders, failed requests and their lookups.
namespace ferry::seckill {

using storage::AsInt;
using storage::AsText;
using storage::SqlConnection;
using storage::SqlRow;
using storage::SqlValue;

namespace {

// Records a failed decision under the request id so that it is replayed, not re-decided.
Status RecordFailure(SqlConnection& db, const OrderDraft& d, const char* reason) {
  return db.Execute(
      "INSERT INTO seckill_request (request_id, activity_id, sku_id, user_id, created, order_no,"
      " reason) VALUES (?, ?, ?, ?, 0, 0, ?)",
      {d.request_id, d.activity_id, d.sku_id, d.user_id, std::string(reason)});
}

// The activity's generation under the stock row's lock, for decisions that take no unit: a unit
// such a decision gives back to the cache goes to the generation a reload may be replacing only
// if the reload had not yet read the stock.
Status LockedEpoch(SqlConnection& db, int64_t activity_id, int64_t sku_id, int64_t* epoch) {
  std::vector<SqlRow> rows;
  Status s = db.Query(std::string("SELECT cache_epoch FROM seckill_stock WHERE activity_id = ? AND"
                                  " sku_id = ?") +
                          ForUpdate(db),
                      {activity_id, sku_id}, &rows);
  if (!s.ok()) return s;
  if (rows.empty())
    return Status(StatusCode::NOT_FOUND, "no activity " + std::to_string(activity_id));
  *epoch = AsInt(rows[0][0]);
  return Status::Ok();
}

Status ReplayDecision(const SqlRow& row, PlaceResult* result) {
  result->replayed = true;
  result->order_no = AsInt(row[1]);
  if (AsInt(row[0]) != 0) {
    result->outcome = PlaceOutcome::kCreated;
  } else {
    result->outcome =
        AsText(row[2]) == kReasonSoldOut ? PlaceOutcome::kSoldOut : PlaceOutcome::kAlreadyJoined;
  }
  return Status::Ok();
}

}  // namespace

Status SqlOrderStore::PlaceOrder(const OrderDraft& d, PlaceResult* result) {
  return InTransaction([&](SqlConnection& db) {
    *result = PlaceResult{};
    std::vector<SqlRow> rows;
    // A sequence number of a generation is handed out once: an order of another request holding
    // it means the cache sold it again after losing the reservation that had it. Looked at on
    // replays too, so that a caller that failed to act on it hears it again.
    if (d.cache_epoch != 0 && d.cache_seq != 0) {
      Status s = db.Query(
          "SELECT user_id, request_id FROM seckill_order WHERE activity_id = ? AND sku_id = ?"
          " AND cache_epoch = ? AND cache_seq = ?",
          {d.activity_id, d.sku_id, d.cache_epoch, d.cache_seq}, &rows);
      if (!s.ok()) return s;
      result->sequence_reused =
          !rows.empty() && (AsText(rows[0][0]) != d.user_id || AsText(rows[0][1]) != d.request_id);
      rows.clear();
    }
    Status s = db.Query(
        "SELECT created, order_no, reason FROM seckill_request"
        " WHERE user_id = ? AND activity_id = ? AND sku_id = ? AND request_id = ?",
        {d.user_id, d.activity_id, d.sku_id, d.request_id}, &rows);
    if (!s.ok()) return s;
    if (!rows.empty()) {
      if (s = LockedEpoch(db, d.activity_id, d.sku_id, &result->cache_epoch); !s.ok()) return s;
      return ReplayDecision(rows[0], result);
    }
    s = db.Query(
        "SELECT order_no FROM seckill_order WHERE user_id = ? AND activity_id = ? AND sku_id = ?",
        {d.user_id, d.activity_id, d.sku_id}, &rows);
    if (!s.ok()) return s;
    if (!rows.empty()) {
      result->outcome = PlaceOutcome::kAlreadyJoined;
      if (s = LockedEpoch(db, d.activity_id, d.sku_id, &result->cache_epoch); !s.ok()) return s;
      return RecordFailure(db, d, kReasonAlreadyJoined);
    }
    // The order carries its generation and sequence number (unique together) unless the number
    // was reused: it is written all the same, the database's stock deciding, without them.
    SqlValue epoch;
    SqlValue seq;
    if (d.cache_epoch != 0 && d.cache_seq != 0 && !result->sequence_reused) {
      epoch = d.cache_epoch;
      seq = d.cache_seq;
    }
    int64_t taken = 0;
    // An order of the current cache generation raises its written high-water mark.
    s = db.Execute(
        "UPDATE seckill_stock SET remaining = remaining - 1,"
        " cache_seq = CASE WHEN cache_epoch = ? AND cache_seq < ? THEN ? ELSE cache_seq END"
        " WHERE activity_id = ? AND sku_id = ? AND remaining > 0",
        {d.cache_epoch, d.cache_seq, d.cache_seq, d.activity_id, d.sku_id}, &taken);
    if (!s.ok()) return s;
    if (s = LockedEpoch(db, d.activity_id, d.sku_id, &result->cache_epoch); !s.ok()) return s;
    if (taken == 0) {
      result->outcome = PlaceOutcome::kSoldOut;
      return RecordFailure(db, d, kReasonSoldOut);
    }
    // A concurrent order of the same user or request fails these with ALREADY_EXISTS; the
    // retry then replays or answers kAlreadyJoined, and the rollback returns the unit.
    s = db.Execute(
        "INSERT INTO seckill_order (order_no, activity_id, sku_id, user_id, request_id, state,"
        " created_ms, pay_deadline_ms, amount_cents, currency, check_at_ms, cache_epoch,"
        " cache_seq) VALUES (?, ?, ?, ?, ?, 'UNPAID', ?, ?, ?, ?, ?, ?, ?)",
        {d.order_no, d.activity_id, d.sku_id, d.user_id, d.request_id, d.created_ms,
         d.pay_deadline_ms, d.amount_cents, d.currency, d.pay_deadline_ms, epoch, seq});
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
                                  RequestRecord* decided, int64_t* cache_epoch) {
  if (scope.user_id.empty() || scope.request_id.empty() || scope.activity_id == 0) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "failing a request needs its user, activity, sku and request id");
  }
  if (reason.empty() || reason.size() > 32) {
    return Status(StatusCode::INVALID_ARGUMENT, "a failure's reason must be 1..32 bytes");
  }
  return InTransaction([&](SqlConnection& db) {
    if (Status s = LockedEpoch(db, scope.activity_id, scope.sku_id, cache_epoch); !s.ok()) {
      return s;
    }
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
    std::vector<SqlValue> params{scope.request_id};
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
    Status s =
        db.Query(std::string("SELECT ") + kOrderColumns + " FROM seckill_order WHERE order_no = ?",
                 {order_no}, &rows);
    if (!s.ok()) return s;
    if (rows.empty()) return NotFoundOrder(order_no);
    *out = OrderFromRow(rows[0]);
    return Status::Ok();
  });
}

Status SqlOrderStore::FindUndecided(const std::vector<RequestScope>& scopes,
                                    std::vector<bool>* undecided) {
  undecided->assign(scopes.size(), true);
  if (scopes.empty()) return Status::Ok();
  return WithConnection([&](SqlConnection& db) {
    std::vector<SqlValue> params{scopes[0].activity_id, scopes[0].sku_id};
    for (const RequestScope& scope : scopes) {
      params.emplace_back(scope.user_id);
      params.emplace_back(scope.request_id);
    }
    std::vector<SqlRow> rows;
    Status s = db.Query(
        "SELECT user_id, request_id FROM seckill_request WHERE activity_id = ? AND sku_id = ?"
        " AND (user_id, request_id) IN (" +
            storage::SqlPlaceholders(scopes.size(), 2) + ")",
        params, &rows);
    if (!s.ok()) return s;
    std::unordered_set<std::string> decided;
    for (const SqlRow& row : rows) decided.insert(RequestField(AsText(row[0]), AsText(row[1])));
    for (size_t i = 0; i < scopes.size(); ++i) {
      (*undecided)[i] = decided.count(RequestField(scopes[i].user_id, scopes[i].request_id)) == 0;
    }
    return Status::Ok();
  });
}

}  // namespace ferry::seckill
