#include "storage/stats_schema.h"

namespace ferry::shortlink {

namespace {

// The index on counted_at_ms serves the retention of event ids (StatsStore::ForgetEventsBefore).

constexpr std::string_view kSqlite = R"sql(
CREATE TABLE IF NOT EXISTS shortlink_stat_events (
  event_id TEXT PRIMARY KEY,
  counted_at_ms INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS shortlink_stat_events_counted ON shortlink_stat_events (counted_at_ms);
CREATE TABLE IF NOT EXISTS shortlink_stat_days (
  code TEXT NOT NULL,
  day TEXT NOT NULL,
  pv INTEGER NOT NULL DEFAULT 0,
  uv INTEGER NOT NULL DEFAULT 0,
  bots INTEGER NOT NULL DEFAULT 0,
  visitors BLOB,
  PRIMARY KEY (code, day));
CREATE TABLE IF NOT EXISTS shortlink_stat_referrers (
  code TEXT NOT NULL,
  day TEXT NOT NULL,
  host TEXT NOT NULL,
  pv INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (code, day, host));
CREATE TABLE IF NOT EXISTS shortlink_stat_agents (
  code TEXT NOT NULL,
  day TEXT NOT NULL,
  device TEXT NOT NULL,
  browser TEXT NOT NULL,
  pv INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (code, day, device, browser));
CREATE TABLE IF NOT EXISTS shortlink_visit_outbox (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id TEXT NOT NULL,
  code TEXT NOT NULL,
  at_ms INTEGER NOT NULL,
  visitor TEXT NOT NULL,
  referrer_host TEXT NOT NULL,
  bot INTEGER NOT NULL,
  device TEXT NOT NULL DEFAULT '',
  browser TEXT NOT NULL DEFAULT '')
)sql";

constexpr std::string_view kMariaDb = R"sql(
CREATE TABLE IF NOT EXISTS shortlink_stat_events (
  event_id VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
  counted_at_ms BIGINT NOT NULL) ENGINE = InnoDB;
CREATE INDEX IF NOT EXISTS shortlink_stat_events_counted ON shortlink_stat_events (counted_at_ms);
CREATE TABLE IF NOT EXISTS shortlink_stat_days (
  code VARCHAR(320) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  day CHAR(10) CHARACTER SET ascii NOT NULL,
  pv BIGINT NOT NULL DEFAULT 0,
  uv BIGINT NOT NULL DEFAULT 0,
  bots BIGINT NOT NULL DEFAULT 0,
  visitors BLOB,
  PRIMARY KEY (code, day)) ENGINE = InnoDB;
CREATE TABLE IF NOT EXISTS shortlink_stat_referrers (
  code VARCHAR(320) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  day CHAR(10) CHARACTER SET ascii NOT NULL,
  host VARCHAR(255) CHARACTER SET ascii NOT NULL,
  pv BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (code, day, host)) ENGINE = InnoDB;
CREATE TABLE IF NOT EXISTS shortlink_stat_agents (
  code VARCHAR(320) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  day CHAR(10) CHARACTER SET ascii NOT NULL,
  device VARCHAR(16) CHARACTER SET ascii NOT NULL,
  browser VARCHAR(16) CHARACTER SET ascii NOT NULL,
  pv BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (code, day, device, browser)) ENGINE = InnoDB;
CREATE TABLE IF NOT EXISTS shortlink_visit_outbox (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  event_id VARCHAR(64) CHARACTER SET ascii NOT NULL,
  code VARCHAR(320) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  at_ms BIGINT NOT NULL,
  visitor CHAR(16) CHARACTER SET ascii NOT NULL,
  referrer_host VARCHAR(255) CHARACTER SET ascii NOT NULL,
  bot TINYINT NOT NULL,
  device VARCHAR(16) CHARACTER SET ascii NOT NULL DEFAULT '',
  browser VARCHAR(16) CHARACTER SET ascii NOT NULL DEFAULT '') ENGINE = InnoDB
)sql";

}  // namespace

std::string_view StatsSchemaSql(storage::SqlDialect dialect) {
  return dialect == storage::SqlDialect::kSqlite ? kSqlite : kMariaDb;
}

}  // namespace ferry::shortlink
