#include "storage/like_schema.h"

#include "ferry/storage/sql_placeholders.h"

namespace ferry::like {

namespace {

// like_state's primary key is the UNIQUE (content, user) every event is applied under.
constexpr std::string_view kSqlite = R"sql(
CREATE TABLE IF NOT EXISTS like_state (
  content_id INTEGER NOT NULL,
  user_id BLOB NOT NULL,
  liked INTEGER NOT NULL,
  version INTEGER NOT NULL,
  bucket INTEGER NOT NULL,
  PRIMARY KEY (content_id, user_id));
CREATE INDEX IF NOT EXISTS like_state_by_user ON like_state (user_id, content_id);
CREATE INDEX IF NOT EXISTS like_state_by_bucket ON like_state (content_id, bucket);
CREATE TABLE IF NOT EXISTS like_count (
  content_id INTEGER NOT NULL,
  bucket INTEGER NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (content_id, bucket));
CREATE TABLE IF NOT EXISTS like_outbox (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  content_id INTEGER NOT NULL,
  user_id BLOB NOT NULL,
  liked INTEGER NOT NULL,
  version INTEGER NOT NULL,
  bucket INTEGER NOT NULL,
  created_ms INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS like_layout (
  content_id INTEGER PRIMARY KEY,
  buckets INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS like_request (
  content_id INTEGER NOT NULL,
  user_id BLOB NOT NULL,
  request_id BLOB NOT NULL,
  liked INTEGER NOT NULL,
  changed INTEGER NOT NULL,
  created_ms INTEGER NOT NULL,
  PRIMARY KEY (content_id, user_id, request_id));
CREATE INDEX IF NOT EXISTS like_request_by_age ON like_request (created_ms);
CREATE TABLE IF NOT EXISTS like_dead_letter (
  stream BLOB NOT NULL,
  entry_id BLOB NOT NULL,
  content_id INTEGER NOT NULL,
  user_id BLOB NOT NULL,
  liked INTEGER NOT NULL,
  version INTEGER NOT NULL,
  bucket INTEGER NOT NULL,
  reason BLOB NOT NULL,
  PRIMARY KEY (stream, entry_id))
)sql";

constexpr std::string_view kMariaDb = R"sql(
CREATE TABLE IF NOT EXISTS like_state (
  content_id BIGINT NOT NULL,
  user_id VARBINARY(128) NOT NULL,
  liked TINYINT NOT NULL,
  version BIGINT NOT NULL,
  bucket INT NOT NULL,
  PRIMARY KEY (content_id, user_id),
  KEY like_state_by_user (user_id, content_id),
  KEY like_state_by_bucket (content_id, bucket)) ENGINE=InnoDB;
CREATE TABLE IF NOT EXISTS like_count (
  content_id BIGINT NOT NULL,
  bucket INT NOT NULL,
  count BIGINT NOT NULL,
  PRIMARY KEY (content_id, bucket)) ENGINE=InnoDB;
CREATE TABLE IF NOT EXISTS like_outbox (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  content_id BIGINT NOT NULL,
  user_id VARBINARY(128) NOT NULL,
  liked TINYINT NOT NULL,
  version BIGINT NOT NULL,
  bucket INT NOT NULL,
  created_ms BIGINT NOT NULL) ENGINE=InnoDB;
CREATE TABLE IF NOT EXISTS like_layout (
  content_id BIGINT NOT NULL PRIMARY KEY,
  buckets INT NOT NULL) ENGINE=InnoDB;
CREATE TABLE IF NOT EXISTS like_request (
  content_id BIGINT NOT NULL,
  user_id VARBINARY(128) NOT NULL,
  request_id VARBINARY(128) NOT NULL,
  liked TINYINT NOT NULL,
  changed TINYINT NOT NULL,
  created_ms BIGINT NOT NULL,
  PRIMARY KEY (content_id, user_id, request_id),
  KEY like_request_by_age (created_ms)) ENGINE=InnoDB;
CREATE TABLE IF NOT EXISTS like_dead_letter (
  stream VARBINARY(255) NOT NULL,
  entry_id VARBINARY(64) NOT NULL,
  content_id BIGINT NOT NULL,
  user_id BLOB NOT NULL,
  liked TINYINT NOT NULL,
  version BIGINT NOT NULL,
  bucket INT NOT NULL,
  reason VARBINARY(1000) NOT NULL,
  PRIMARY KEY (stream, entry_id)) ENGINE=InnoDB
)sql";

}  // namespace

std::string_view LikeSchema(storage::SqlDialect dialect) {
  return dialect == storage::SqlDialect::kSqlite ? kSqlite : kMariaDb;
}

std::string AddToCountsSql(storage::SqlDialect dialect, size_t rows) {
  return "INSERT INTO like_count (content_id, bucket, count) VALUES " +
         storage::SqlPlaceholders(rows, 3) +
         (dialect == storage::SqlDialect::kSqlite
              ? " ON CONFLICT (content_id, bucket) DO UPDATE SET count = count + excluded.count"
              : " ON DUPLICATE KEY UPDATE count = count + VALUES(count)");
}

}  // namespace ferry::like
