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
         " cache_server VARCHAR(96) NOT NULL DEFAULT '', decided_base BIGINT NOT NULL DEFAULT 0,"
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
         " amount_cents BIGINT NOT NULL, currency VARCHAR(8) NOT NULL,"
         " channel VARCHAR(32) NOT NULL DEFAULT '', payment_id VARCHAR(128) NOT NULL DEFAULT '',"
         " channel_txn_id VARCHAR(128) NOT NULL DEFAULT '',"
         " check_at_ms BIGINT NOT NULL, confirm_deadline_ms BIGINT NOT NULL DEFAULT 0,"
         // NULL for orders of no cache generation: a UNIQUE key allows any number of those.
         " cache_epoch BIGINT NULL, cache_seq BIGINT NULL,"
         " UNIQUE (user_id, activity_id, sku_id),"
         " UNIQUE (activity_id, sku_id, cache_epoch, cache_seq))" +
         engine +
         ";"
         "CREATE INDEX IF NOT EXISTS seckill_order_due ON seckill_order (state, check_at_ms);"
         "CREATE INDEX IF NOT EXISTS seckill_order_activity ON seckill_order"
         " (activity_id, sku_id, state);"
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
         "CREATE INDEX IF NOT EXISTS seckill_request_activity ON seckill_request"
         " (activity_id, sku_id, created);"
         // What the channels said money did: PAID (it paid the order), REFUND_OWED (it came for
         // an order closed, paid otherwise, or with another amount), REFUNDED.
         "CREATE TABLE IF NOT EXISTS seckill_payment (channel VARCHAR(32) NOT NULL,"
         " channel_txn_id " +
         id +
         " NOT NULL, order_no BIGINT NOT NULL, amount_cents BIGINT NOT NULL,"
         " currency VARCHAR(8) NOT NULL, outcome VARCHAR(16) NOT NULL,"
         " PRIMARY KEY (channel, channel_txn_id))" +
         engine +
         ";"
         "CREATE INDEX IF NOT EXISTS seckill_payment_order ON seckill_payment (order_no);"
         "CREATE TABLE IF NOT EXISTS seckill_refund (channel VARCHAR(32) NOT NULL,"
         " channel_txn_id " +
         id + " NOT NULL, order_no BIGINT NOT NULL, refund_id " + id +
         " NOT NULL, PRIMARY KEY (channel, channel_txn_id))" + engine +
         ";"
         "CREATE INDEX IF NOT EXISTS seckill_refund_open ON seckill_refund (refund_id);"
         // Notifications applied, so that a replay of one is refused; kept as long as a
         // notification is young enough to be accepted at all.
         "CREATE TABLE IF NOT EXISTS seckill_notification (channel VARCHAR(32) NOT NULL,"
         " notification_id " +
         id +
         " NOT NULL, order_no BIGINT NOT NULL, received_ms BIGINT NOT NULL,"
         " PRIMARY KEY (channel, notification_id))" +
         engine +
         ";"
         "CREATE INDEX IF NOT EXISTS seckill_notification_age ON seckill_notification"
         " (received_ms);"
         // Units given back to the database and not yet to the cache: a row goes once its unit
         // reached the cache, so the table holds only what is pending.
         "CREATE TABLE IF NOT EXISTS seckill_stock_release (order_no BIGINT NOT NULL"
         " PRIMARY KEY, activity_id BIGINT NOT NULL, sku_id BIGINT NOT NULL,"
         " cache_epoch BIGINT NOT NULL)" +
         engine +
         ";"
         "CREATE INDEX IF NOT EXISTS seckill_stock_release_activity ON seckill_stock_release"
         " (activity_id, sku_id, cache_epoch);"
         // The blacklist: kind 'u' (user) or 'a' (client address).
         "CREATE TABLE IF NOT EXISTS seckill_blacklist (kind CHAR(1) NOT NULL,"
         " entry " +
         std::string(maria ? "VARBINARY(255)" : "BLOB") + " NOT NULL, PRIMARY KEY (kind, entry))" +
         engine +
         ";"
         "CREATE TABLE IF NOT EXISTS seckill_schema (version INT NOT NULL PRIMARY KEY)" +
         engine + ";" + (maria ? "INSERT IGNORE" : "INSERT OR IGNORE") +
         " INTO seckill_schema (version) VALUES (" + std::to_string(kOrderSchemaVersion) + ");";
}

}  // namespace ferry::seckill
