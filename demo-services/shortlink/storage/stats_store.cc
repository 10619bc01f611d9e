#include "storage/stats_store.h"

#include <cstdio>
#include <map>

#include "ferry/storage/sql_columns.h"
#include "ferry/storage/sql_placeholders.h"
#include "storage/stat_counters.h"
#include "storage/stats_schema.h"
#include "storage/visitor_sketch.h"

namespace ferry::shortlink {

using storage::AsInt;
using storage::AsText;
using storage::SqlConnection;
using storage::SqlConnectionPool;
using storage::SqlRow;
using storage::SqlValue;

std::string UtcDay(int64_t at_ms) {
  // Days since the epoch to a civil date (Howard Hinnant's algorithm), UTC.
  int64_t z = (at_ms >= 0 ? at_ms : at_ms - 86'399'999) / 86'400'000 + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const int64_t m = mp < 10 ? mp + 3 : mp - 9;
  const int64_t y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  char text[40];
  std::snprintf(text, sizeof(text), "%04d-%02d-%02d", static_cast<int>(y), static_cast<int>(m),
                static_cast<int>(d));
  return text;
}

namespace {

bool Exists(const Status& s) { return s.code() == StatusCode::ALREADY_EXISTS; }

// An event written before device classes and browser families were recorded.
std::string OrOther(const std::string& name) { return name.empty() ? "other" : name; }

// Tables an earlier version made: the outbox's device and browser columns, and (MariaDB) the
// code columns widened from 64 to 320 characters for "<domain>/<code>" keys.
Status UpgradeTables(SqlConnection& db) {
  const bool sqlite = db.dialect() == storage::SqlDialect::kSqlite;
  for (const char* column :
       {sqlite ? "device TEXT NOT NULL DEFAULT ''"
               : "device VARCHAR(16) CHARACTER SET ascii NOT NULL DEFAULT ''",
        sqlite ? "browser TEXT NOT NULL DEFAULT ''"
               : "browser VARCHAR(16) CHARACTER SET ascii NOT NULL DEFAULT ''"}) {
    if (Status s = storage::AddColumnIfMissing(db, "shortlink_visit_outbox", column); !s.ok()) {
      return s;
    }
  }
  for (const char* table : {"shortlink_stat_days", "shortlink_stat_referrers",
                            "shortlink_stat_agents", "shortlink_visit_outbox"}) {
    if (Status s = storage::WidenVarcharColumn(
            db, table, "code", 320,
            "code VARCHAR(320) CHARACTER SET ascii COLLATE ascii_bin NOT NULL");
        !s.ok()) {
      return s;
    }
  }
  return Status::Ok();
}

}  // namespace

Status StatsStore::Initialize() {
  std::unique_ptr<SqlConnectionPool::Lease> c;
  if (Status s = pool_->Acquire(&c); !s.ok()) return s;
  if (Status s = c->Check((*c)->ExecuteScript(StatsSchemaSql((*c)->dialect()))); !s.ok()) {
    return s;
  }
  return c->Check(UpgradeTables(**c));
}

// The events whose ids are new, their ids recorded: one multi-row INSERT when none was counted
// before (the usual case); otherwise, that statement having failed alone, one INSERT per event.
Status StatsStore::Fresh(SqlConnection& db, const std::vector<VisitEvent>& events, int64_t now_ms,
                         std::vector<const VisitEvent*>* fresh) {
  std::string sql = "INSERT INTO shortlink_stat_events (event_id, counted_at_ms) VALUES ";
  std::vector<SqlValue> params;
  for (size_t i = 0; i < events.size(); ++i) {
    sql += i == 0 ? "(?, ?)" : ", (?, ?)";
    params.emplace_back(events[i].event_id);
    params.emplace_back(now_ms);
  }
  Status s = db.Execute(sql, params, nullptr);
  if (s.ok()) {
    for (const VisitEvent& e : events) fresh->push_back(&e);
    return s;
  }
  if (!Exists(s)) return s;
  for (const VisitEvent& e : events) {
    s = db.Execute("INSERT INTO shortlink_stat_events (event_id, counted_at_ms) VALUES (?, ?)",
                   {e.event_id, now_ms}, nullptr);
    if (s.ok()) {
      fresh->push_back(&e);
    } else if (!Exists(s)) {  // Exists: counted before, a redelivery or a replay
      return s;
    }
  }
  return Status::Ok();
}

// New events' counters summed per (code, day), per (code, day, host) and per (code, day,
// device, browser), then written in a few multi-row statements (stat_counters.h) whatever the
// batch's size.
Status StatsStore::CountBatch(SqlConnection& db, const std::vector<VisitEvent>& events,
                              int64_t now_ms, int* counted) {
  std::vector<const VisitEvent*> fresh;
  if (Status s = Fresh(db, events, now_ms, &fresh); !s.ok()) return s;
  std::set<std::string> deleted;
  if (Status s = DeletedCodes(db, events, &deleted); !s.ok()) return s;
  std::map<DayKey, DayIncrement> days;
  std::map<ReferrerKey, int64_t> referrers;
  std::map<AgentKey, int64_t> agents;
  for (const VisitEvent* e : fresh) {
    if (deleted.contains(e->code)) continue;  // erased with its link; its id stays recorded
    const std::string day = UtcDay(e->at_ms);
    DayIncrement& d = days[{e->code, day}];
    ++agents[{e->code, day, OrOther(e->device), OrOther(e->browser)}];
    if (e->bot) {
      ++d.bots;
      continue;
    }
    uint64_t visitor = 0;
    if (!ParseVisitor(e->visitor, &visitor)) {
      return Status(StatusCode::INVALID_ARGUMENT, "visit event " + e->event_id + ": visitor '" +
                                                      e->visitor + "' is not 16 hex digits");
    }
    ++d.pv;
    d.visitors.push_back(visitor);
    if (!e->referrer_host.empty()) ++referrers[{e->code, day, e->referrer_host}];
  }
  if (!days.empty()) {
    if (Status s = AddDayCounts(db, days); !s.ok()) return s;
  }
  if (!referrers.empty()) {
    if (Status s = AddReferrerCounts(db, referrers); !s.ok()) return s;
  }
  if (!agents.empty()) {
    if (Status s = AddAgentCounts(db, agents); !s.ok()) return s;
  }
  *counted = static_cast<int>(fresh.size());
  return Status::Ok();
}

// The links of `events` deleted meanwhile (DeleteLink erased their counters first).
Status StatsStore::DeletedCodes(SqlConnection& db, const std::vector<VisitEvent>& events,
                                std::set<std::string>* deleted) {
  std::set<std::string> codes;
  for (const VisitEvent& e : events) codes.insert(e.code);
  if (codes.empty()) return Status::Ok();
  std::vector<SqlValue> params(codes.begin(), codes.end());
  std::vector<SqlRow> rows;
  if (Status s = db.Query("SELECT code FROM shortlink_links WHERE deleted_at_ms IS NOT NULL AND "
                          "code IN " +
                              storage::SqlPlaceholders(1, params.size()),
                          params, &rows);
      !s.ok()) {
    return s;
  }
  for (const SqlRow& row : rows) deleted->insert(AsText(row[0]));
  return Status::Ok();
}

Status StatsStore::Apply(const std::vector<VisitEvent>& events, int64_t now_ms, int* counted,
                         int64_t outbox_through) {
  // Consumers of batches with codes in common can deadlock on MariaDB (gap locks of rows made
  // at once); the database rolls one back (ABORTED) and the pool runs it again.
  Status s = pool_->InTransaction([&](SqlConnection& db) {
    *counted = 0;
    Status s = events.empty() ? Status::Ok() : CountBatch(db, events, now_ms, counted);
    if (s.ok() && outbox_through > 0) {
      s = db.Execute("DELETE FROM shortlink_visit_outbox WHERE id <= ?", {outbox_through}, nullptr);
    }
    return s;
  });
  if (!s.ok()) *counted = 0;
  return s;
}

Status StatsStore::AppendOutbox(const std::vector<VisitEvent>& events) {
  std::unique_ptr<SqlConnectionPool::Lease> c;
  if (Status s = pool_->Acquire(&c); !s.ok()) return s;
  SqlConnection& db = **c;
  if (Status s = c->Check(db.Begin()); !s.ok()) return s;
  Status s = Status::Ok();
  for (size_t i = 0; s.ok() && i < events.size(); ++i) {
    const VisitEvent& e = events[i];
    s = c->Check(db.Execute(
        "INSERT INTO shortlink_visit_outbox (event_id, code, at_ms, visitor, referrer_host, bot, "
        "device, browser) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        {e.event_id, e.code, e.at_ms, e.visitor, e.referrer_host, int64_t{e.bot ? 1 : 0}, e.device,
         e.browser},
        nullptr));
  }
  if (!s.ok()) {
    db.Rollback();
    return s;
  }
  return c->Check(db.Commit());
}

Status StatsStore::ReadOutbox(int limit, std::vector<VisitEvent>* events, int64_t* last_id) {
  std::unique_ptr<SqlConnectionPool::Lease> c;
  if (Status s = pool_->Acquire(&c); !s.ok()) return s;
  std::vector<SqlRow> rows;
  if (Status s =
          c->Check((*c)->Query("SELECT id, event_id, code, at_ms, visitor, referrer_host, bot, "
                               "device, browser FROM shortlink_visit_outbox ORDER BY id LIMIT ?",
                               {int64_t{limit}}, &rows));
      !s.ok()) {
    return s;
  }
  for (const SqlRow& row : rows) {
    events->push_back(VisitEvent{.event_id = AsText(row[1]),
                                 .code = AsText(row[2]),
                                 .at_ms = AsInt(row[3]),
                                 .visitor = AsText(row[4]),
                                 .referrer_host = AsText(row[5]),
                                 .bot = AsInt(row[6]) != 0,
                                 .device = AsText(row[7]),
                                 .browser = AsText(row[8])});
    *last_id = AsInt(row[0]);
  }
  return Status::Ok();
}

Status StatsStore::TotalVisits(const std::vector<std::string>& codes,
                               std::map<std::string, int64_t>* out) {
  if (codes.empty()) return Status::Ok();
  std::unique_ptr<SqlConnectionPool::Lease> c;
  if (Status s = pool_->Acquire(&c); !s.ok()) return s;
  std::vector<SqlValue> params(codes.begin(), codes.end());
  std::vector<SqlRow> rows;
  if (Status s = c->Check(
          (*c)->Query("SELECT code, SUM(pv + bots) FROM shortlink_stat_days WHERE code IN " +
                          storage::SqlPlaceholders(1, params.size()) + " GROUP BY code",
                      params, &rows));
      !s.ok()) {
    return s;
  }
  for (const SqlRow& row : rows) (*out)[AsText(row[0])] = AsInt(row[1]);
  return Status::Ok();
}

Status StatsStore::Erase(const std::string& code) {
  return pool_->InTransaction([&](SqlConnection& db) {
    Status s = db.Execute("DELETE FROM shortlink_stat_days WHERE code = ?", {code}, nullptr);
    if (s.ok()) {
      s = db.Execute("DELETE FROM shortlink_stat_referrers WHERE code = ?", {code}, nullptr);
    }
    if (s.ok()) {
      s = db.Execute("DELETE FROM shortlink_stat_agents WHERE code = ?", {code}, nullptr);
    }
    return s;
  });
}

Status StatsStore::ForgetEventsBefore(int64_t before_ms, int limit, int* forgotten) {
  std::unique_ptr<SqlConnectionPool::Lease> c;
  if (Status s = pool_->Acquire(&c); !s.ok()) return s;
  // MariaDB cannot LIMIT an IN subquery, SQLite cannot LIMIT a DELETE (as Debian builds it).
  const std::string sql =
      (*c)->dialect() == storage::SqlDialect::kMariaDb
          ? "DELETE FROM shortlink_stat_events WHERE counted_at_ms < ? ORDER BY counted_at_ms "
            "LIMIT ?"
          : "DELETE FROM shortlink_stat_events WHERE event_id IN (SELECT event_id FROM "
            "shortlink_stat_events WHERE counted_at_ms < ? ORDER BY counted_at_ms LIMIT ?)";
  int64_t affected = 0;
  if (Status s = c->Check((*c)->Execute(sql, {before_ms, int64_t{limit}}, &affected)); !s.ok()) {
    return s;
  }
  *forgotten = static_cast<int>(affected);
  return Status::Ok();
}

Status StatsStore::Read(const std::string& code, const std::string& from_day,
                        const std::string& to_day, int referrer_limit, LinkStats* out) {
  std::unique_ptr<SqlConnectionPool::Lease> c;
  if (Status s = pool_->Acquire(&c); !s.ok()) return s;
  std::vector<SqlRow> rows;
  Status s = c->Check((*c)->Query(
      "SELECT day, pv, uv, bots FROM shortlink_stat_days WHERE code = ? AND day >= ? AND day <= ? "
      "ORDER BY day",
      {code, from_day, to_day}, &rows));
  if (!s.ok()) return s;
  for (const SqlRow& row : rows) {
    out->days.push_back(DayCount{
        .day = AsText(row[0]), .pv = AsInt(row[1]), .uv = AsInt(row[2]), .bots = AsInt(row[3])});
  }
  rows.clear();
  s = c->Check((*c)->Query(
      "SELECT host, SUM(pv) AS total FROM shortlink_stat_referrers WHERE code = ? AND day >= ? "
      "AND day <= ? GROUP BY host ORDER BY total DESC, host LIMIT ?",
      {code, from_day, to_day, int64_t{referrer_limit}}, &rows));
  if (!s.ok()) return s;
  for (const SqlRow& row : rows) out->referrers.emplace_back(AsText(row[0]), AsInt(row[1]));
  // A handful of names each (user_agent_class.h): all of them.
  auto by = [&](const std::string& column, std::vector<std::pair<std::string, int64_t>>* names) {
    rows.clear();
    Status r = c->Check((*c)->Query(
        "SELECT " + column + ", SUM(pv) AS total FROM shortlink_stat_agents WHERE code = ? AND " +
            "day >= ? AND day <= ? GROUP BY " + column + " ORDER BY total DESC, " + column,
        {code, from_day, to_day}, &rows));
    if (!r.ok()) return r;
    for (const SqlRow& row : rows) names->emplace_back(AsText(row[0]), AsInt(row[1]));
    return Status::Ok();
  };
  s = by("device", &out->devices);
  return s.ok() ? by("browser", &out->browsers) : s;
}

}  // namespace ferry::shortlink
