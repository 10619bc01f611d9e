#include "storage/sql_order_store.h"

#include <unordered_set>

#include "storage/order_schema.h"
#include "storage/sql_order_rows.h"

namespace ferry::seckill {

using storage::AsInt;
using storage::AsText;
using storage::SqlConnection;
using storage::SqlConnectionPool;
using storage::SqlDialect;
using storage::SqlRow;

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
        // from its stock already counts cannot be told afterwards. Version 4 took payments from
        // buyers' reports: which of its PAID orders the channel confirmed cannot be told.
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

Status SqlOrderStore::HighestActivityId(int64_t* out) {
  return WithConnection([&](SqlConnection& db) {
    std::vector<SqlRow> rows;
    Status s = db.Query("SELECT COALESCE(MAX(activity_id), 0) FROM seckill_activity", {}, &rows);
    if (!s.ok()) return s;
    *out = AsInt(rows.at(0).at(0));
    return Status::Ok();
  });
}

Status SqlOrderStore::MarkOpen(int64_t activity_id) {
  return WithConnection([&](SqlConnection& db) {
    return db.Execute("UPDATE seckill_activity SET is_open = 1 WHERE activity_id = ?",
                      {activity_id});
  });
}

Status SqlOrderStore::BeginCacheEpoch(int64_t activity_id, int64_t sku_id, int64_t previous,
                                      int64_t epoch, const std::string& server,
                                      int64_t counted_reservations,
                                      const std::vector<RequestScope>& reservations,
                                      CacheEpochBase* out) {
  return InTransaction([&](SqlConnection& db) {
    *out = CacheEpochBase{};
    // The stock row's lock orders this against every order write and cancellation: each one
    // either committed before (in the stock read and, for a write, its decision read below) or
    // commits after (in neither), so the cache gets each unit exactly once.
    std::vector<SqlRow> rows;
    Status s = db.Query(
        std::string("SELECT remaining, cache_epoch FROM seckill_stock WHERE activity_id = ? AND"
                    " sku_id = ?") +
            ForUpdate(db),
        {activity_id, sku_id}, &rows);
    if (!s.ok()) return s;
    if (rows.empty()) {
      return Status(StatusCode::NOT_FOUND, "no activity " + std::to_string(activity_id));
    }
    if (AsInt(rows[0][1]) != previous) {
      // Not ABORTED, which the transaction would retry: the caller starts its reload again.
      return Status(StatusCode::FAILED_PRECONDITION,
                    "activity " + std::to_string(activity_id) + ": cache generation " +
                        std::to_string(AsInt(rows[0][1])) + " replaced " +
                        std::to_string(previous) + " meanwhile");
    }
    out->remaining_stock = AsInt(rows[0][0]);
    // One read of the activity's decisions rather than one per kept reservation: the stock row
    // stays locked for as short a time as the reservations allow.
    rows.clear();
    s = db.Query(
        "SELECT user_id, request_id FROM seckill_request WHERE activity_id = ? AND sku_id = ?",
        {activity_id, sku_id}, &rows);
    if (!s.ok()) return s;
    std::unordered_set<std::string> decided;
    decided.reserve(rows.size());
    for (const SqlRow& row : rows) decided.insert(RequestField(AsText(row[0]), AsText(row[1])));
    out->undecided.reserve(reservations.size());
    int64_t undecided = 0;
    for (const RequestScope& r : reservations) {
      out->undecided.push_back(decided.count(RequestField(r.user_id, r.request_id)) == 0);
      undecided += out->undecided.back() ? 1 : 0;
    }
    // The count's reservations the database decided are among the decisions now; the rest of
    // the decisions now are of reservations the count does not include (lost, or wiped).
    const int64_t base = static_cast<int64_t>(rows.size()) - (counted_reservations - undecided);
    s = db.Execute(
        "UPDATE seckill_stock SET cache_epoch = ?, cache_seq = 0, cache_server = ?,"
        " decided_base = ? WHERE activity_id = ? AND sku_id = ?",
        {epoch, server, base, activity_id, sku_id});
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

}  // namespace ferry::seckill
