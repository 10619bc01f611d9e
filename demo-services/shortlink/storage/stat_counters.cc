#include "storage/stat_counters.h"

#include <set>

#include "ferry/storage/sql_placeholders.h"
#include "storage/visitor_sketch.h"

namespace ferry::shortlink {

using storage::AsText;
using storage::SqlConnection;
using storage::SqlDialect;
using storage::SqlPlaceholders;
using storage::SqlRow;
using storage::SqlValue;

namespace {

// Rows per statement: SQLite allows 32,766 parameters, and six per day row stays below it.
constexpr size_t kRowsPerStatement = 1000;

// The counters a row already has plus the batch's; the sketch (and so UV) replaced by the
// merged one read under the row's lock.
std::string_view DaysUpsert(SqlDialect dialect) {
  return dialect == SqlDialect::kSqlite
             ? " ON CONFLICT (code, day) DO UPDATE SET pv = pv + excluded.pv, "
               "bots = bots + excluded.bots, uv = excluded.uv, visitors = excluded.visitors"
             : " ON DUPLICATE KEY UPDATE pv = pv + VALUES(pv), bots = bots + VALUES(bots), "
               "uv = VALUES(uv), visitors = VALUES(visitors)";
}

std::string_view ReferrersUpsert(SqlDialect dialect) {
  return dialect == SqlDialect::kSqlite
             ? " ON CONFLICT (code, day, host) DO UPDATE SET pv = pv + excluded.pv"
             : " ON DUPLICATE KEY UPDATE pv = pv + VALUES(pv)";
}

std::string_view AgentsUpsert(SqlDialect dialect) {
  return dialect == SqlDialect::kSqlite
             ? " ON CONFLICT (code, day, device, browser) DO UPDATE SET pv = pv + excluded.pv"
             : " ON DUPLICATE KEY UPDATE pv = pv + VALUES(pv)";
}

template <typename Map, typename Body>
Status InChunks(const Map& map, Body body) {
  auto from = map.begin();
  while (from != map.end()) {
    auto to = from;
    size_t n = 0;
    while (to != map.end() && n < kRowsPerStatement) ++to, ++n;
    if (Status s = body(from, to, n); !s.ok()) return s;
    from = to;
  }
  return Status::Ok();
}

Status MakeRows(SqlConnection& db, const std::map<DayKey, DayIncrement>& days) {
  return InChunks(days, [&](auto from, auto to, size_t n) {
    std::vector<SqlValue> params;
    for (auto it = from; it != to; ++it) {
      params.emplace_back(it->first.first);
      params.emplace_back(it->first.second);
    }
    const std::string nothing = db.dialect() == SqlDialect::kSqlite
                                    ? " ON CONFLICT (code, day) DO NOTHING"
                                    : " ON DUPLICATE KEY UPDATE pv = pv";
    return db.Execute(
        "INSERT INTO shortlink_stat_days (code, day) VALUES " + SqlPlaceholders(n, 2) + nothing,
        params, nullptr);
  });
}

// The rows' sketches, locked until the transaction ends. Codes and days are matched as two
// IN lists (the primary key's range), which may also lock a few other rows of those codes.
Status ReadSketches(SqlConnection& db, const std::map<DayKey, DayIncrement>& days,
                    std::map<DayKey, VisitorSketch>* sketches) {
  return InChunks(days, [&](auto from, auto to, size_t) {
    std::set<std::string> codes;
    std::set<std::string> dates;
    for (auto it = from; it != to; ++it) {
      codes.insert(it->first.first);
      dates.insert(it->first.second);
    }
    std::vector<SqlValue> params(codes.begin(), codes.end());
    params.insert(params.end(), dates.begin(), dates.end());
    std::vector<SqlRow> rows;
    Status s = db.Query("SELECT code, day, visitors FROM shortlink_stat_days WHERE code IN " +
                            SqlPlaceholders(1, codes.size()) + " AND day IN " +
                            SqlPlaceholders(1, dates.size()) +
                            (db.dialect() == SqlDialect::kMariaDb ? " FOR UPDATE" : ""),
                        params, &rows);
    if (!s.ok()) return s;
    for (const SqlRow& row : rows) {
      DayKey key{AsText(row[0]), AsText(row[1])};
      if (!days.contains(key)) continue;
      std::string error;
      if (!VisitorSketch::Parse(AsText(row[2]), &(*sketches)[key], &error)) {
        return Status(StatusCode::INTERNAL, key.first + " on " + key.second + ": " + error);
      }
    }
    return Status::Ok();
  });
}

}  // namespace

Status AddDayCounts(SqlConnection& db, const std::map<DayKey, DayIncrement>& days) {
  if (Status s = MakeRows(db, days); !s.ok()) return s;
  std::map<DayKey, VisitorSketch> sketches;
  if (Status s = ReadSketches(db, days, &sketches); !s.ok()) return s;
  const std::string_view upsert = DaysUpsert(db.dialect());
  return InChunks(days, [&](auto from, auto to, size_t n) {
    std::vector<SqlValue> params;
    for (auto it = from; it != to; ++it) {
      VisitorSketch& sketch = sketches[it->first];
      for (uint64_t v : it->second.visitors) sketch.Add(v);
      params.emplace_back(it->first.first);
      params.emplace_back(it->first.second);
      params.emplace_back(it->second.pv);
      params.emplace_back(it->second.bots);
      params.emplace_back(sketch.Count());
      params.emplace_back(sketch.Serialize());
    }
    return db.Execute(
        "INSERT INTO shortlink_stat_days (code, day, pv, bots, uv, visitors) VALUES " +
            SqlPlaceholders(n, 6) + std::string(upsert),
        params, nullptr);
  });
}

Status AddReferrerCounts(SqlConnection& db, const std::map<ReferrerKey, int64_t>& referrers) {
  const std::string_view upsert = ReferrersUpsert(db.dialect());
  return InChunks(referrers, [&](auto from, auto to, size_t n) {
    std::vector<SqlValue> params;
    for (auto it = from; it != to; ++it) {
      const auto& [code, day, host] = it->first;
      params.emplace_back(code);
      params.emplace_back(day);
      params.emplace_back(host);
      params.emplace_back(it->second);
    }
    return db.Execute("INSERT INTO shortlink_stat_referrers (code, day, host, pv) VALUES " +
                          SqlPlaceholders(n, 4) + std::string(upsert),
                      params, nullptr);
  });
}

Status AddAgentCounts(SqlConnection& db, const std::map<AgentKey, int64_t>& agents) {
  const std::string_view upsert = AgentsUpsert(db.dialect());
  return InChunks(agents, [&](auto from, auto to, size_t n) {
    std::vector<SqlValue> params;
    for (auto it = from; it != to; ++it) {
      const auto& [code, day, device, browser] = it->first;
      params.emplace_back(code);
      params.emplace_back(day);
      params.emplace_back(device);
      params.emplace_back(browser);
      params.emplace_back(it->second);
    }
    return db.Execute("INSERT INTO shortlink_stat_agents (code, day, device, browser, pv) VALUES " +
                          SqlPlaceholders(n, 5) + std::string(upsert),
                      params, nullptr);
  });
}

}  // namespace ferry::shortlink
