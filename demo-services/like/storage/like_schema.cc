#include "storage/like_schema.h"

#include "ferry/storage/sql_lease.h"
#include "ferry/storage/sql_placeholders.h"

namespace ferry::like {

namespace {

// like_state's primary key is the UNIQUE (content, user) every change is applied under; its
// two other indexes serve the lists, newest first (versions are microseconds of the change),
// and per content the tombstones a reconciler pass drops. The statements after the tables
// bring a database made by an earlier version up to date; on a new one they change nothing.
constexpr std::string_view kSqlite = R"sql(
CREATE TABLE IF NOT EXISTS like_state (
  content_id INTEGER NOT NULL,
  user_id BLOB NOT NULL,
  liked INTEGER NOT NULL,
  version INTEGER NOT NULL,
  bucket INTEGER NOT NULL,
  PRIMARY KEY (content_id, user_id));
DROP INDEX IF EXISTS like_state_by_user;
DROP INDEX IF EXISTS like_state_by_bucket;
CREATE INDEX IF NOT EXISTS like_state_user_recent ON like_state (user_id, liked, version);
CREATE INDEX IF NOT EXISTS like_state_content_recent ON like_state (content_id, liked, version);
CREATE TABLE IF NOT EXISTS like_count (
  content_id INTEGER NOT NULL,
  bucket INTEGER NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (content_id, bucket));
CREATE TABLE IF NOT EXISTS like_outbox (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  part INTEGER NOT NULL DEFAULT 0,
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
  redrives INTEGER NOT NULL DEFAULT 0,
  created_ms INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (stream, entry_id));
CREATE TABLE IF NOT EXISTS like_partition (
  part INTEGER PRIMARY KEY,
  generation INTEGER NOT NULL,
  last_id BLOB NOT NULL,
  feed_seq INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS like_feed (
  part INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  content_id INTEGER NOT NULL,
  user_id BLOB NOT NULL,
  liked INTEGER NOT NULL,
  version INTEGER NOT NULL,
  created_ms INTEGER NOT NULL,
  PRIMARY KEY (part, seq));
CREATE INDEX IF NOT EXISTS like_feed_by_time ON like_feed (created_ms);
CREATE TABLE IF NOT EXISTS like_meta (
  name BLOB PRIMARY KEY,
  value BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS like_user_deletion (
  user_id BLOB PRIMARY KEY,
  requested_ms INTEGER NOT NULL,
  done_ms INTEGER NOT NULL,
  unliked INTEGER NOT NULL)
)sql";

constexpr std::string_view kMariaDb = R"sql(
CREATE TABLE IF NOT EXISTS like_state (
  content_id BIGINT NOT NULL,
  user_id VARBINARY(128) NOT NULL,
  liked TINYINT NOT NULL,
  version BIGINT NOT NULL,
  bucket INT NOT NULL,
  PRIMARY KEY (content_id, user_id),
  KEY like_state_user_recent (user_id, liked, version),
  KEY like_state_content_recent (content_id, liked, version)) ENGINE=InnoDB;
DROP INDEX IF EXISTS like_state_by_user ON like_state;
DROP INDEX IF EXISTS like_state_by_bucket ON like_state;
CREATE INDEX IF NOT EXISTS like_state_user_recent ON like_state (user_id, liked, version);
CREATE INDEX IF NOT EXISTS like_state_content_recent ON like_state (content_id, liked, version);
CREATE TABLE IF NOT EXISTS like_count (
  content_id BIGINT NOT NULL,
  bucket INT NOT NULL,
  count BIGINT NOT NULL,
  PRIMARY KEY (content_id, bucket)) ENGINE=InnoDB;
CREATE TABLE IF NOT EXISTS like_outbox (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  part INT NOT NULL DEFAULT 0,
  content_id BIGINT NOT NULL,
  user_id VARBINARY(128) NOT NULL,
  liked TINYINT NOT NULL,
  version BIGINT NOT NULL,
  bucket INT NOT NULL,
  created_ms BIGINT NOT NULL,
  KEY like_outbox_by_part (part, id)) ENGINE=InnoDB;
ALTER TABLE like_outbox ADD COLUMN IF NOT EXISTS part INT NOT NULL DEFAULT 0 AFTER id;
CREATE INDEX IF NOT EXISTS like_outbox_by_part ON like_outbox (part, id);
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
  redrives INT NOT NULL DEFAULT 0,
  created_ms BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (stream, entry_id)) ENGINE=InnoDB;
ALTER TABLE like_dead_letter ADD COLUMN IF NOT EXISTS redrives INT NOT NULL DEFAULT 0;
ALTER TABLE like_dead_letter ADD COLUMN IF NOT EXISTS created_ms BIGINT NOT NULL DEFAULT 0;
CREATE TABLE IF NOT EXISTS like_partition (
  part INT NOT NULL PRIMARY KEY,
  generation BIGINT NOT NULL,
  last_id VARBINARY(64) NOT NULL,
  feed_seq BIGINT NOT NULL) ENGINE=InnoDB;
CREATE TABLE IF NOT EXISTS like_feed (
  part INT NOT NULL,
  seq BIGINT NOT NULL,
  content_id BIGINT NOT NULL,
  user_id VARBINARY(128) NOT NULL,
  liked TINYINT NOT NULL,
  version BIGINT NOT NULL,
  created_ms BIGINT NOT NULL,
  PRIMARY KEY (part, seq),
  KEY like_feed_by_time (created_ms)) ENGINE=InnoDB;
CREATE TABLE IF NOT EXISTS like_meta (
  name VARBINARY(64) NOT NULL PRIMARY KEY,
  value VARBINARY(255) NOT NULL) ENGINE=InnoDB;
CREATE TABLE IF NOT EXISTS like_user_deletion (
  user_id VARBINARY(128) NOT NULL PRIMARY KEY,
  requested_ms BIGINT NOT NULL,
  done_ms BIGINT NOT NULL,
  unliked BIGINT NOT NULL) ENGINE=InnoDB
)sql";

}  // namespace

std::string LikeSchema(storage::SqlDialect dialect) {
  return std::string(dialect == storage::SqlDialect::kSqlite ? kSqlite : kMariaDb) + ";" +
         std::string(storage::SqlLease::Schema(dialect));
}

std::string AddToCountsSql(storage::SqlDialect dialect, size_t rows) {
  return "INSERT INTO like_count (content_id, bucket, count) VALUES " +
         storage::SqlPlaceholders(rows, 3) +
         (dialect == storage::SqlDialect::kSqlite
              ? " ON CONFLICT (content_id, bucket) DO UPDATE SET count = count + excluded.count"
              : " ON DUPLICATE KEY UPDATE count = count + VALUES(count)");
}

}  // namespace ferry::like
