#include "storage/link_schema.h"

#include "ferry/storage/sql_columns.h"

namespace ferry::shortlink {

namespace {

constexpr std::string_view kSqlite = R"sql(
CREATE TABLE IF NOT EXISTS shortlink_links (
  code TEXT PRIMARY KEY,
  tenant_id INTEGER NOT NULL,
  request_id TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  long_url TEXT NOT NULL,
  dedup_hash TEXT NULL,
  created_at_ms INTEGER NOT NULL,
  expires_at_ms INTEGER NULL,
  max_visits INTEGER NULL,
  visits INTEGER NOT NULL DEFAULT 0,
  version INTEGER NOT NULL DEFAULT 1,
  disabled INTEGER NOT NULL DEFAULT 0,
  purged INTEGER NOT NULL DEFAULT 0,
  expired_url TEXT NULL,
  deleted_at_ms INTEGER NULL,
  domain TEXT NOT NULL DEFAULT '',
  forward_query INTEGER NOT NULL DEFAULT 1,
  title TEXT NOT NULL DEFAULT '',
  tags TEXT NOT NULL DEFAULT '',
  UNIQUE (tenant_id, request_id),
  UNIQUE (tenant_id, dedup_hash));
CREATE INDEX IF NOT EXISTS shortlink_links_tenant ON shortlink_links (tenant_id, code);
CREATE TABLE IF NOT EXISTS shortlink_link_tags (
  tenant_id INTEGER NOT NULL,
  tag TEXT NOT NULL,
  code TEXT NOT NULL,
  PRIMARY KEY (tenant_id, tag, code));
CREATE TABLE IF NOT EXISTS shortlink_domains (
  domain TEXT PRIMARY KEY,
  tenant_id INTEGER NOT NULL,
  created_at_ms INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS shortlink_sequences (
  name TEXT PRIMARY KEY,
  next_id INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS shortlink_tenants (
  tenant_id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL UNIQUE,
  created_at_ms INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS shortlink_api_keys (
  key_id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id INTEGER NOT NULL,
  key_hash TEXT NOT NULL UNIQUE,
  created_at_ms INTEGER NOT NULL,
  revoked_at_ms INTEGER NULL);
CREATE TABLE IF NOT EXISTS shortlink_secrets (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS shortlink_changes (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  code TEXT NOT NULL,
  version INTEGER NOT NULL,
  at_ms INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS shortlink_changes_at ON shortlink_changes (at_ms)
)sql";

constexpr std::string_view kMariaDb = R"sql(
CREATE TABLE IF NOT EXISTS shortlink_links (
  code VARCHAR(320) CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
  tenant_id BIGINT NOT NULL,
  request_id VARBINARY(128) NOT NULL,
  fingerprint CHAR(64) CHARACTER SET ascii NOT NULL,
  long_url TEXT NOT NULL,
  dedup_hash CHAR(64) CHARACTER SET ascii NULL,
  created_at_ms BIGINT NOT NULL,
  expires_at_ms BIGINT NULL,
  max_visits BIGINT NULL,
  visits BIGINT NOT NULL DEFAULT 0,
  version BIGINT NOT NULL DEFAULT 1,
  disabled TINYINT NOT NULL DEFAULT 0,
  purged TINYINT NOT NULL DEFAULT 0,
  expired_url TEXT NULL,
  deleted_at_ms BIGINT NULL,
  domain VARCHAR(253) CHARACTER SET ascii NOT NULL DEFAULT '',
  forward_query TINYINT NOT NULL DEFAULT 1,
  title VARCHAR(200) NOT NULL DEFAULT '',
  tags VARCHAR(400) CHARACTER SET ascii NOT NULL DEFAULT '',
  UNIQUE KEY shortlink_links_request (tenant_id, request_id),
  UNIQUE KEY shortlink_links_dedup (tenant_id, dedup_hash),
  KEY shortlink_links_tenant (tenant_id, code)) ENGINE = InnoDB;
CREATE TABLE IF NOT EXISTS shortlink_link_tags (
  tenant_id BIGINT NOT NULL,
  tag VARCHAR(32) CHARACTER SET ascii NOT NULL,
  code VARCHAR(320) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  PRIMARY KEY (tenant_id, tag, code)) ENGINE = InnoDB;
CREATE TABLE IF NOT EXISTS shortlink_domains (
  domain VARCHAR(253) CHARACTER SET ascii NOT NULL PRIMARY KEY,
  tenant_id BIGINT NOT NULL,
  created_at_ms BIGINT NOT NULL) ENGINE = InnoDB;
CREATE TABLE IF NOT EXISTS shortlink_sequences (
  name VARCHAR(64) CHARACTER SET ascii NOT NULL PRIMARY KEY,
  next_id BIGINT NOT NULL) ENGINE = InnoDB;
CREATE TABLE IF NOT EXISTS shortlink_tenants (
  tenant_id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  name VARCHAR(255) NOT NULL UNIQUE,
  created_at_ms BIGINT NOT NULL) ENGINE = InnoDB;
CREATE TABLE IF NOT EXISTS shortlink_api_keys (
  key_id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  tenant_id BIGINT NOT NULL,
  key_hash CHAR(64) CHARACTER SET ascii NOT NULL UNIQUE,
  created_at_ms BIGINT NOT NULL,
  revoked_at_ms BIGINT NULL) ENGINE = InnoDB;
CREATE TABLE IF NOT EXISTS shortlink_secrets (
  name VARCHAR(64) CHARACTER SET ascii NOT NULL PRIMARY KEY,
  value VARCHAR(255) CHARACTER SET ascii NOT NULL) ENGINE = InnoDB;
CREATE TABLE IF NOT EXISTS shortlink_changes (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  code VARCHAR(320) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  version BIGINT NOT NULL,
  at_ms BIGINT NOT NULL,
  KEY shortlink_changes_at (at_ms)) ENGINE = InnoDB
)sql";

}  // namespace

std::string_view LinkSchemaSql(storage::SqlDialect dialect) {
  return dialect == storage::SqlDialect::kSqlite ? kSqlite : kMariaDb;
}

Status AddLinkColumns(storage::SqlConnection& c) {
  const bool sqlite = c.dialect() == storage::SqlDialect::kSqlite;
  const char* const columns[] = {
      "expired_url TEXT NULL",
      sqlite ? "deleted_at_ms INTEGER NULL" : "deleted_at_ms BIGINT NULL",
      sqlite ? "domain TEXT NOT NULL DEFAULT ''"
             : "domain VARCHAR(253) CHARACTER SET ascii NOT NULL DEFAULT ''",
      sqlite ? "forward_query INTEGER NOT NULL DEFAULT 1"
             : "forward_query TINYINT NOT NULL DEFAULT 1",
      sqlite ? "title TEXT NOT NULL DEFAULT ''" : "title VARCHAR(200) NOT NULL DEFAULT ''",
      sqlite ? "tags TEXT NOT NULL DEFAULT ''"
             : "tags VARCHAR(400) CHARACTER SET ascii NOT NULL DEFAULT ''"};
  for (const char* column : columns) {
    if (Status s = storage::AddColumnIfMissing(c, "shortlink_links", column); !s.ok()) return s;
  }
  // Keys of custom domains ("<domain>/<code>") are longer than the codes of earlier versions.
  for (const char* table : {"shortlink_links", "shortlink_changes"}) {
    if (Status s = storage::WidenVarcharColumn(
            c, table, "code", 320,
            "code VARCHAR(320) CHARACTER SET ascii COLLATE ascii_bin NOT NULL");
        !s.ok()) {
      return s;
    }
  }
  // The cleanup's look for links deleted lately, and the listing's order (newest first).
  return c.ExecuteScript(
      "CREATE INDEX IF NOT EXISTS shortlink_links_deleted ON shortlink_links (deleted_at_ms);\n"
      "CREATE INDEX IF NOT EXISTS shortlink_links_listing ON shortlink_links (tenant_id, "
      "created_at_ms, code)");
}

}  // namespace ferry::shortlink
