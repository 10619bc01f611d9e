#include "seckill_database_check.h"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <system_error>
#include <unordered_map>

#include "ferry/storage/mariadb_connection.h"
#include "ferry/storage/sqlite_connection.h"

namespace ferry::bench {

namespace {

Status Connect(const SeckillDatabaseOptions& options,
               std::unique_ptr<storage::SqlConnection>* out) {
  if (options.kind == "sqlite") {
    // Opening would create a missing file; a wrong path must say so instead.
    std::error_code error;
    if (!std::filesystem::is_regular_file(options.sqlite_path, error)) {
      return Status(StatusCode::NOT_FOUND, "no SQLite database at " + options.sqlite_path);
    }
    const storage::SqliteOptions sqlite{.path = options.sqlite_path};
    return storage::SqliteConnection::Open(sqlite, out);
  }
  storage::MariaDbOptions maria;
  maria.host = options.host;
  maria.port = options.port;
  maria.user = options.user;
  maria.password = options.password;
  maria.database = options.database;
  return storage::MariaDbConnection::Open(maria, out);
}

}  // namespace

Status ReadSeckillDatabase(const SeckillDatabaseOptions& options, int64_t activity_id,
                           const std::vector<std::pair<std::string, std::string>>& accepted,
                           SeckillDatabaseFindings* out) {
  std::unique_ptr<storage::SqlConnection> db;
  if (Status s = Connect(options, &db); !s.ok()) return s;
  *out = SeckillDatabaseFindings{};
  // One statement, so the stock and the order counts come from the same moment.
  std::vector<storage::SqlRow> rows;
  Status s = db->Query(
      "SELECT a.initial_stock, s.remaining,"
      " (SELECT COUNT(*) FROM seckill_order o WHERE o.activity_id = a.activity_id"
      "  AND o.state IN ('UNPAID', 'PAYING', 'CONFIRMING')),"
      " (SELECT COUNT(*) FROM seckill_order o WHERE o.activity_id = a.activity_id"
      "  AND o.state = 'PAID'),"
      " (SELECT COUNT(*) FROM seckill_order o WHERE o.activity_id = a.activity_id"
      "  AND o.state = 'CANCELLED'),"
      " (SELECT COUNT(*) FROM (SELECT user_id FROM seckill_order WHERE activity_id = ?"
      "  GROUP BY user_id HAVING COUNT(*) > 1) doubled)"
      " FROM seckill_activity a JOIN seckill_stock s ON s.activity_id = a.activity_id"
      " AND s.sku_id = a.sku_id WHERE a.activity_id = ?",
      {activity_id, activity_id}, &rows);
  if (!s.ok()) return s;
  if (rows.empty()) {
    return Status(StatusCode::NOT_FOUND,
                  "activity " + std::to_string(activity_id) + " is not in the database");
  }
  const storage::SqlRow& row = rows[0];
  out->initial_stock = storage::AsInt(row[0]);
  out->remaining = storage::AsInt(row[1]);
  out->unpaid = storage::AsInt(row[2]);
  out->paid = storage::AsInt(row[3]);
  out->cancelled = storage::AsInt(row[4]);
  out->users_with_two_orders = storage::AsInt(row[5]);

  rows.clear();
  s = db->Query("SELECT request_id, user_id FROM seckill_order WHERE activity_id = ?",
                {activity_id}, &rows);
  if (!s.ok()) return s;
  // A request id is one buyer's (the key is user, activity, sku and id), so two buyers may
  // share one: an accepted request is matched by its id and its buyer together.
  std::unordered_multimap<std::string, std::string> users_of;  // request id -> user ids
  for (const storage::SqlRow& order : rows) {
    users_of.emplace(storage::AsText(order[0]), storage::AsText(order[1]));
  }
  for (const auto& [request_id, user_id] : accepted) {
    const auto [first, last] = users_of.equal_range(request_id);
    if (first == last) {
      ++out->accepted_without_order;
    } else if (std::none_of(first, last,
                            [&](const auto& held) { return held.second == user_id; })) {
      ++out->accepted_order_of_another_user;
    }
  }
  return Status::Ok();
}

}  // namespace ferry::bench
