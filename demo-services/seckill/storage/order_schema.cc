#include "storage/order_schema.h"

namespace ferry::seckill {

std::string OrderSchemaSql(storage::SqlDialect dialect) {
  const bool maria = dialect == storage::SqlDialect::kMariaDb;
  const std::string id_column = maria ? "activity_id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY"
                                      : "activity_id INTEGER PRIMARY KEY AUTOINCREMENT";
  const std::string engine = maria ? " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4" : "";
  // Identifiers compare byte for byte on both databases: MariaDB's default collation would
  // make "Bob" and "bob " the same user, SQLite's BINARY does not.
  const std::string id = maria ? "VARCHAR(128) COLLATE utf8mb4_nopad_bin" : "VARCHAR(128)";
  return "CREATE TABLE IF NOT EXISTS seckill_activity (" + id_column +
         ", sku_id BIGINT NOT NULL, name VARCHAR(200) NOT NULL, initial_stock BIGINT NOT NULL,"
         " start_time_ms BIGINT NOT NULL, end_time_ms BIGINT NOT NULL,"
         " price_cents BIGINT NOT NULL, pay_timeout_s INT NOT NULL,"
         " is_open INT NOT NULL DEFAULT 0)" +
         engine +
         ";"
         "CREATE TABLE IF NOT EXISTS seckill_stock (activity_id BIGINT NOT NULL,"
         " sku_id BIGINT NOT NULL, remaining BIGINT NOT NULL,"
         " cache_epoch BIGINT NOT NULL DEFAULT 0, cache_seq BIGINT NOT NULL DEFAULT 0,"
         " PRIMARY KEY (activity_id, sku_id))" +
         engine +
         ";"
         "CREATE TABLE IF NOT EXISTS seckill_cache_epoch (activity_id BIGINT NOT NULL,"
         " sku_id BIGINT NOT NULL, epoch BIGINT NOT NULL,"
         " PRIMARY KEY (activity_id, sku_id, epoch))" +
         engine +
         ";"
         "CREATE TABLE IF NOT EXISTS seckill_order (order_no BIGINT NOT NULL PRIMARY KEY,"
         " activity_id BIGINT NOT NULL, sku_id BIGINT NOT NULL, user_id " +
         id + " NOT NULL, request_id " + id +
         " NOT NULL, state VARCHAR(16) NOT NULL,"
         " created_ms BIGINT NOT NULL, pay_deadline_ms BIGINT NOT NULL,"
         " UNIQUE (user_id, activity_id, sku_id))" +
         engine +
         ";"
         "CREATE INDEX IF NOT EXISTS seckill_order_expiry ON seckill_order"
         " (state, pay_deadline_ms);"
         "CREATE TABLE IF NOT EXISTS seckill_request (request_id " +
         id +
         " NOT NULL, activity_id BIGINT NOT NULL, sku_id BIGINT NOT NULL,"
         " user_id " +
         id +
         " NOT NULL, created INT NOT NULL, order_no BIGINT NOT NULL,"
         " reason VARCHAR(32) NOT NULL, PRIMARY KEY (user_id, activity_id, sku_id, request_id))" +
         engine +
         ";"
         "CREATE INDEX IF NOT EXISTS seckill_request_id ON seckill_request (request_id);"
         "CREATE TABLE IF NOT EXISTS seckill_payment (channel VARCHAR(32) NOT NULL,"
         " channel_txn_id VARCHAR(128) NOT NULL, order_no BIGINT NOT NULL,"
         " outcome VARCHAR(16) NOT NULL, PRIMARY KEY (channel, channel_txn_id))" +
         engine +
         ";"
         "CREATE TABLE IF NOT EXISTS seckill_refund (channel VARCHAR(32) NOT NULL,"
         " channel_txn_id VARCHAR(128) NOT NULL, order_no BIGINT NOT NULL,"
         " refund_id VARCHAR(128) NOT NULL, PRIMARY KEY (channel, channel_txn_id))" +
         engine +
         ";"
         "CREATE TABLE IF NOT EXISTS seckill_stock_release (order_no BIGINT NOT NULL"
         " PRIMARY KEY, activity_id BIGINT NOT NULL, sku_id BIGINT NOT NULL,"
         " cache_epoch BIGINT NOT NULL, cache_released INT NOT NULL DEFAULT 0)" +
         engine +
         ";"
         "CREATE TABLE IF NOT EXISTS seckill_schema (version INT NOT NULL PRIMARY KEY)" +
         engine + ";" + (maria ? "INSERT IGNORE" : "INSERT OR IGNORE") +
         " INTO seckill_schema (version) VALUES (" + std::to_string(kOrderSchemaVersion) + ");";
}

}  // namespace ferry::seckill
