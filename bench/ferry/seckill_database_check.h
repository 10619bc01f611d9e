#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ferry/codec/status.h"

namespace ferry::bench {

// `ferry-bench seckill --verify-db`: where the provider's database of record is, read directly
// (never through the provider) once the orders have settled.
struct SeckillDatabaseOptions {
  std::string kind;                // --verify-db: "" (no database check), "sqlite" or "mariadb"
  std::string sqlite_path;         // --db-path (sqlite)
  std::string host = "127.0.0.1";  // --db-host (mariadb)
  uint16_t port = 3306;            // --db-port
  std::string user = "root";       // --db-user
  std::string password;            // --db-password
  std::string database = "ferry_seckill";  // --db-name
};

// What the database holds for one activity.
struct SeckillDatabaseFindings {
  int64_t initial_stock = 0;
  int64_t remaining = 0;  // seckill_stock.remaining
  int64_t unpaid = 0;     // open: UNPAID, PAYING or CONFIRMING (awaiting the channel)
  int64_t paid = 0;
  int64_t cancelled = 0;
  int64_t users_with_two_orders = 0;
  // ACCEPTED requests with no order row, and those whose order belongs to another user.
  int64_t accepted_without_order = 0;
  int64_t accepted_order_of_another_user = 0;
};

// Reads the activity's stock and orders in one statement each, and looks up every ACCEPTED
// request (request id, user id) among the orders. NOT_FOUND when the activity is not there;
// the database's own status when it cannot be reached.
Status ReadSeckillDatabase(const SeckillDatabaseOptions& options, int64_t activity_id,
                           const std::vector<std::pair<std::string, std::string>>& accepted,
                           SeckillDatabaseFindings* out);

}  // namespace ferry::bench
