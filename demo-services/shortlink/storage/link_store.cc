#include "storage/link_store.h"

#include <openssl/rand.h>

#include <chrono>
#include <utility>

#include "ferry/storage/sqlite_connection.h"
#include "storage/link_schema.h"

namespace ferry::shortlink {

using storage::AsInt;
using storage::AsText;
using storage::SqlConnection;
using storage::SqlConnectionPool;
using storage::SqlRow;
using storage::SqlValue;

namespace {

constexpr std::string_view kColumns =
    "SELECT code, tenant_id, request_id, fingerprint, long_url, dedup_hash, created_at_ms, "
    "expires_at_ms, max_visits, visits, version, disabled, purged, expired_url, deleted_at_ms, "
    "domain, forward_query, title, tags FROM shortlink_links ";

// Tags are kept in the row too (joined by ','; a tag holds none), so a listed link needs no
// second query; the tags table serves the filter by tag.
std::string JoinTags(const std::vector<std::string>& tags) {
  std::string out;
  for (const std::string& tag : tags) out += (out.empty() ? "" : ",") + tag;
  return out;
}

std::vector<std::string> SplitTags(const std::string& joined) {
  std::vector<std::string> tags;
  size_t start = 0;
  while (start < joined.size()) {
    size_t end = joined.find(',', start);
    if (end == std::string::npos) end = joined.size();
    tags.push_back(joined.substr(start, end - start));
    start = end + 1;
  }
  return tags;
}

// A LIKE pattern matching `word` anywhere, with '!' escaping the pattern's own characters.
std::string ContainsPattern(const std::string& word) {
  std::string out = "%";
  for (char ch : word) {
    if (ch == '%' || ch == '_' || ch == '!') out += '!';
    out += ch;
  }
  return out + "%";
}

LinkRecord FromRow(const SqlRow& row) {
  LinkRecord r;
  r.code = AsText(row[0]);
  r.tenant_id = AsInt(row[1]);
  r.request_id = AsText(row[2]);
  r.fingerprint = AsText(row[3]);
  r.long_url = AsText(row[4]);
  r.dedup_hash = AsText(row[5]);
  r.created_at_ms = AsInt(row[6]);
  r.expires_at_ms = AsInt(row[7]);
  r.max_visits = AsInt(row[8]);
  r.visits = AsInt(row[9]);
  r.version = AsInt(row[10]);
  r.disabled = AsInt(row[11]) != 0;
  r.purged = AsInt(row[12]) != 0;
  r.expired_url = AsText(row[13]);
  r.deleted_at_ms = AsInt(row[14]);
  r.domain = AsText(row[15]);
  r.forward_query = AsInt(row[16]) != 0;
  r.title = AsText(row[17]);
  r.tags = SplitTags(AsText(row[18]));
  return r;
}

int64_t WallClockMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

SqlValue NullIfZero(int64_t v) { return v == 0 ? SqlValue(nullptr) : SqlValue(v); }
SqlValue NullIfEmpty(const std::string& v) { return v.empty() ? SqlValue(nullptr) : SqlValue(v); }

}  // namespace

Status LinkStore::Query(SqlConnection& c, std::string_view sql, const std::vector<SqlValue>& params,
                        std::vector<SqlRow>* rows) {
  queries_.fetch_add(1, std::memory_order_relaxed);
  if (observer_) observer_();
  return c.Query(sql, params, rows);
}

Status LinkStore::Execute(SqlConnection& c, std::string_view sql,
                          const std::vector<SqlValue>& params, int64_t* affected) {
  queries_.fetch_add(1, std::memory_order_relaxed);
  if (observer_) observer_();
  return c.Execute(sql, params, affected);
}

Status LinkStore::Initialize() {
  std::unique_ptr<SqlConnectionPool::Lease> c;
  if (Status s = pool_->Acquire(&c); !s.ok()) return s;
  if (Status s = c->Check((*c)->ExecuteScript(LinkSchemaSql((*c)->dialect()))); !s.ok()) return s;
  return c->Check(AddLinkColumns(**c));
}

Status LinkStore::InsertLink(const LinkRecord& link) {
  std::unique_ptr<SqlConnectionPool::Lease> c;
  if (Status s = pool_->Acquire(&c); !s.ok()) return s;
  SqlConnection& db = **c;
  if (Status s = c->Check(db.Begin()); !s.ok()) return s;
  Status s = c->Check(Execute(
      db,
      "INSERT INTO shortlink_links (code, tenant_id, request_id, fingerprint, long_url, "
      "dedup_hash, created_at_ms, expires_at_ms, max_visits, expired_url, domain, forward_query, "
      "title, tags) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      {link.code, link.tenant_id, link.request_id, link.fingerprint, link.long_url,
       NullIfEmpty(link.dedup_hash), link.created_at_ms, NullIfZero(link.expires_at_ms),
       NullIfZero(link.max_visits), NullIfEmpty(link.expired_url), link.domain,
       int64_t{link.forward_query ? 1 : 0}, link.title, JoinTags(link.tags)}));
  if (s.ok()) s = c->Check(ReplaceTags(db, link.tenant_id, link.code, link.tags));
  if (s.ok()) s = c->Check(LogChange(db, link));
  if (!s.ok()) {
    db.Rollback();
    return s;
  }
  return c->Check(db.Commit());
}

Status LinkStore::FindOne(std::string_view where, const std::vector<SqlValue>& params,
                          std::optional<LinkRecord>* out) {
  std::unique_ptr<SqlConnectionPool::Lease> c;
  if (Status s = pool_->Acquire(&c); !s.ok()) return s;
  std::vector<SqlRow> rows;
  if (Status s = c->Check(Query(**c, std::string(kColumns) + std::string(where), params, &rows));
      !s.ok()) {
    return s;
  }
  out->reset();
  if (!rows.empty()) *out = FromRow(rows[0]);
  return Status::Ok();
}

Status LinkStore::FindByCode(const std::string& code, std::optional<LinkRecord>* out) {
  return FindOne("WHERE code = ?", {code}, out);
}

Status LinkStore::FindByRequest(int64_t tenant_id, const std::string& request_id,
                                std::optional<LinkRecord>* out) {
  return FindOne("WHERE tenant_id = ? AND request_id = ?", {tenant_id, request_id}, out);
}

Status LinkStore::FindByDedup(int64_t tenant_id, const std::string& dedup_hash,
                              std::optional<LinkRecord>* out) {
  return FindOne("WHERE tenant_id = ? AND dedup_hash = ?", {tenant_id, dedup_hash}, out);
}

Status LinkStore::LogChange(SqlConnection& db, const LinkRecord& changed) {
  return Execute(db, "INSERT INTO shortlink_changes (code, version, at_ms) VALUES (?, ?, ?)",
                 {changed.code, changed.version, WallClockMs()});
}

Status LinkStore::ReplaceTags(SqlConnection& db, int64_t tenant_id, const std::string& code,
                              const std::vector<std::string>& tags) {
  if (Status s = Execute(db, "DELETE FROM shortlink_link_tags WHERE tenant_id = ? AND code = ?",
                         {tenant_id, code});
      !s.ok()) {
    return s;
  }
  for (const std::string& tag : tags) {
    if (Status s =
            Execute(db, "INSERT INTO shortlink_link_tags (tenant_id, tag, code) VALUES (?, ?, ?)",
                    {tenant_id, tag, code});
        !s.ok()) {
      return s;
    }
  }
  return Status::Ok();
}

Status LinkStore::ChangesSince(int64_t since_ms, std::vector<LoggedChange>* out) {
  std::unique_ptr<SqlConnectionPool::Lease> c;
  if (Status s = pool_->Acquire(&c); !s.ok()) return s;
  std::vector<SqlRow> rows;
  // Not counted in queries(): one statement a second whatever the traffic, off the read path.
  if (Status s = c->Check((*c)->Query(
          "SELECT id, code, version FROM shortlink_changes WHERE at_ms >= ? ORDER BY id",
          {since_ms}, &rows));
      !s.ok()) {
    return s;
  }
  for (const SqlRow& row : rows) {
    out->push_back(
        LoggedChange{.id = AsInt(row[0]), .code = AsText(row[1]), .version = AsInt(row[2])});
  }
  return Status::Ok();
}

Status LinkStore::ForgetChangesBefore(int64_t before_ms) {
  std::unique_ptr<SqlConnectionPool::Lease> c;
  if (Status s = pool_->Acquire(&c); !s.ok()) return s;
  return c->Check(Execute(**c, "DELETE FROM shortlink_changes WHERE at_ms < ?", {before_ms}));
}

Status LinkStore::ReleaseDedup(const std::string& code, const std::string& dedup_hash) {
  std::unique_ptr<SqlConnectionPool::Lease> c;
  if (Status s = pool_->Acquire(&c); !s.ok()) return s;
  return c->Check(
      Execute(**c, "UPDATE shortlink_links SET dedup_hash = NULL WHERE code = ? AND dedup_hash = ?",
              {code, dedup_hash}));
}

Status LinkStore::ChangeLink(int64_t tenant_id, const std::string& code, const LinkChange& change,
                             LinkRecord* out) {
  std::string sql = "UPDATE shortlink_links SET version = version + 1, dedup_hash = NULL";
  std::vector<SqlValue> params;
  if (change.long_url) {
    sql += ", long_url = ?";
    params.emplace_back(*change.long_url);
  }
  if (change.expires_at_ms) {
    sql += ", expires_at_ms = ?";
    params.push_back(NullIfZero(*change.expires_at_ms));
  }
  if (change.max_visits) {
    sql += ", max_visits = ?";
    params.push_back(NullIfZero(*change.max_visits));
  }
  if (change.expired_url) {
    sql += ", expired_url = ?";
    params.push_back(NullIfEmpty(*change.expired_url));
  }
  if (change.visits_at_least) {
    sql += ", visits = CASE WHEN ? > visits THEN ? ELSE visits END";
    params.emplace_back(*change.visits_at_least);
    params.emplace_back(*change.visits_at_least);
  }
  if (change.title) {
    sql += ", title = ?";
    params.emplace_back(*change.title);
  }
  if (change.forward_query) {
    sql += ", forward_query = ?";
    params.emplace_back(int64_t{*change.forward_query ? 1 : 0});
  }
  if (change.tags) {
    sql += ", tags = ?";
    params.emplace_back(JoinTags(*change.tags));
  }
  if (change.disable) sql += ", disabled = 1";
  if (change.enable) sql += ", disabled = 0";
  // A purged link stays purged: its target is gone, and its code is never reused.
  sql += " WHERE code = ? AND tenant_id = ? AND purged = 0";
  params.emplace_back(code);
  params.emplace_back(tenant_id);

  std::unique_ptr<SqlConnectionPool::Lease> c;
  if (Status s = pool_->Acquire(&c); !s.ok()) return s;
  SqlConnection& db = **c;
  if (Status s = c->Check(db.Begin()); !s.ok()) return s;
  int64_t affected = 0;
  Status s = c->Check(Execute(db, sql, params, &affected));
  std::vector<SqlRow> rows;
  if (s.ok() && affected == 1) {
    s = c->Check(Query(db, std::string(kColumns) + "WHERE code = ?", {code}, &rows));
  }
  if (s.ok() && !rows.empty() && change.tags) {
    s = c->Check(ReplaceTags(db, tenant_id, code, *change.tags));
  }
  if (s.ok() && !rows.empty()) s = c->Check(LogChange(db, FromRow(rows[0])));
  if (!s.ok() || affected != 1 || rows.empty()) {
    db.Rollback();
    if (!s.ok()) return s;
    return Status(StatusCode::NOT_FOUND, "no link " + code + " of this tenant (or it was purged)");
  }
  if (Status commit = c->Check(db.Commit()); !commit.ok()) return commit;
  *out = FromRow(rows[0]);
  return Status::Ok();
}

Status LinkStore::ListLinks(int64_t tenant_id, const LinkListing& listing,
                            std::vector<LinkRecord>* out) {
  std::string sql = std::string(kColumns) + "WHERE tenant_id = ?";
  std::vector<SqlValue> params{tenant_id};
  if (listing.before_created_ms != 0) {
    sql += " AND (created_at_ms < ? OR (created_at_ms = ? AND code < ?))";
    params.emplace_back(listing.before_created_ms);
    params.emplace_back(listing.before_created_ms);
    params.emplace_back(listing.before_code);
  }
  for (const std::string& word : listing.words) {
    sql +=
        " AND (LOWER(code) LIKE ? ESCAPE '!' OR LOWER(title) LIKE ? ESCAPE '!' OR "
        "LOWER(long_url) LIKE ? ESCAPE '!')";
    for (int i = 0; i < 3; ++i) params.emplace_back(ContainsPattern(word));
  }
  if (!listing.tag.empty()) {
    sql += " AND code IN (SELECT code FROM shortlink_link_tags WHERE tenant_id = ? AND tag = ?)";
    params.emplace_back(tenant_id);
    params.emplace_back(listing.tag);
  }
  if (listing.domain) {
    sql += " AND domain = ?";
    params.emplace_back(*listing.domain);
  }
  sql += " ORDER BY created_at_ms DESC, code DESC LIMIT ?";
  params.emplace_back(int64_t{listing.limit});
  std::unique_ptr<SqlConnectionPool::Lease> c;
  if (Status s = pool_->Acquire(&c); !s.ok()) return s;
  std::vector<SqlRow> rows;
  if (Status s = c->Check(Query(**c, sql, params, &rows)); !s.ok()) return s;
  for (const SqlRow& row : rows) out->push_back(FromRow(row));
  return Status::Ok();
}

Status LinkStore::AdmitVisit(const std::string& code, int64_t now_ms, bool* admitted) {
  std::unique_ptr<SqlConnectionPool::Lease> c;
  if (Status s = pool_->Acquire(&c); !s.ok()) return s;
  int64_t affected = 0;
  Status s = c->Check(
      Execute(**c,
              "UPDATE shortlink_links SET visits = visits + 1 WHERE code = ? AND disabled = 0 AND "
              "purged = 0 AND (expires_at_ms IS NULL OR expires_at_ms > ?) AND "
              "(max_visits IS NULL OR visits < max_visits)",
              {code, now_ms}, &affected));
  if (!s.ok()) return s;
  *admitted = affected == 1;
  return Status::Ok();
}

Status LinkStore::DeletedSince(int64_t since_ms, std::vector<std::string>* codes) {
  std::unique_ptr<SqlConnectionPool::Lease> c;
  if (Status s = pool_->Acquire(&c); !s.ok()) return s;
  std::vector<SqlRow> rows;
  if (Status s = c->Check(Query(**c, "SELECT code FROM shortlink_links WHERE deleted_at_ms >= ?",
                                {since_ms}, &rows));
      !s.ok()) {
    return s;
  }
  for (const SqlRow& row : rows) codes->push_back(AsText(row[0]));
  return Status::Ok();
}

Status LinkStore::ForEachCode(const std::function<void(const std::string&)>& visit) {
  constexpr int64_t kPage = 5000;
  std::string after;
  while (true) {
    std::unique_ptr<SqlConnectionPool::Lease> c;
    if (Status s = pool_->Acquire(&c); !s.ok()) return s;
    std::vector<SqlRow> rows;
    Status s =
        c->Check(Query(**c, "SELECT code FROM shortlink_links WHERE code > ? ORDER BY code LIMIT ?",
                       {after, kPage}, &rows));
    if (!s.ok()) return s;
    for (const SqlRow& row : rows) visit(AsText(row[0]));
    if (static_cast<int64_t>(rows.size()) < kPage) return Status::Ok();
    after = AsText(rows.back()[0]);
  }
}

Status LinkStore::DeleteLink(int64_t tenant_id, const std::string& code, int64_t now_ms,
                             LinkRecord* out) {
  std::unique_ptr<SqlConnectionPool::Lease> c;
  if (Status s = pool_->Acquire(&c); !s.ok()) return s;
  SqlConnection& db = **c;
  if (Status s = c->Check(db.Begin()); !s.ok()) return s;
  Status s = c->Check(
      Execute(db,
              "UPDATE shortlink_links SET long_url = '', expired_url = NULL, dedup_hash = NULL, "
              "fingerprint = '', title = '', tags = '', purged = 1, deleted_at_ms = ?, "
              "version = version + 1 WHERE code = ? AND tenant_id = ? AND deleted_at_ms IS NULL",
              {now_ms, code, tenant_id}));
  if (s.ok()) s = c->Check(ReplaceTags(db, tenant_id, code, {}));
  std::vector<SqlRow> rows;
  if (s.ok()) {
    s = c->Check(Query(db, std::string(kColumns) + "WHERE code = ? AND tenant_id = ?",
                       {code, tenant_id}, &rows));
  }
  if (s.ok() && !rows.empty()) s = c->Check(LogChange(db, FromRow(rows[0])));
  if (!s.ok() || rows.empty()) {
    db.Rollback();
    if (!s.ok()) return s;
    return Status(StatusCode::NOT_FOUND, "no link " + code + " of this tenant");
  }
  if (Status commit = c->Check(db.Commit()); !commit.ok()) return commit;
  *out = FromRow(rows[0]);
  return Status::Ok();
}

Status LinkStore::SharedSecret(const std::string& name, std::string* secret) {
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof(bytes)) != 1) {
    return Status(StatusCode::INTERNAL, "RAND_bytes failed for the secret " + name);
  }
  std::string fresh;
  for (unsigned char b : bytes) {
    static constexpr char kHex[] = "0123456789abcdef";
    fresh += kHex[b >> 4];
    fresh += kHex[b & 15];
  }
  std::unique_ptr<SqlConnectionPool::Lease> c;
  if (Status s = pool_->Acquire(&c); !s.ok()) return s;
  // The first provider's insert wins; everybody reads the winner's value.
  Status inserted = c->Check((*c)->Execute(
      "INSERT INTO shortlink_secrets (name, value) VALUES (?, ?)", {name, fresh}, nullptr));
  if (!inserted.ok() && !(inserted.code() == StatusCode::ALREADY_EXISTS)) return inserted;
  std::vector<SqlRow> rows;
  if (Status s = c->Check(
          (*c)->Query("SELECT value FROM shortlink_secrets WHERE name = ?", {name}, &rows));
      !s.ok()) {
    return s;
  }
  if (rows.empty()) return Status(StatusCode::INTERNAL, "secret " + name + " missing");
  *secret = AsText(rows[0][0]);
  return Status::Ok();
}

Status LinkStore::CountLinks(uint64_t* count) {
  std::unique_ptr<SqlConnectionPool::Lease> c;
  if (Status s = pool_->Acquire(&c); !s.ok()) return s;
  std::vector<SqlRow> rows;
  if (Status s = c->Check(Query(**c, "SELECT COUNT(*) FROM shortlink_links", {}, &rows)); !s.ok()) {
    return s;
  }
  *count = rows.empty() ? 0 : static_cast<uint64_t>(AsInt(rows[0][0]));
  return Status::Ok();
}

Status LinkStore::LeaseIds(const std::string& name, int64_t count, int64_t* first) {
  std::unique_ptr<SqlConnectionPool::Lease> c;
  if (Status s = pool_->Acquire(&c); !s.ok()) return s;
  SqlConnection& db = **c;
  Status inserted = c->Check(
      Execute(db, "INSERT INTO shortlink_sequences (name, next_id) VALUES (?, 1)", {name}));
  if (!inserted.ok() && inserted.code() != StatusCode::ALREADY_EXISTS) return inserted;
  if (Status s = c->Check(db.Begin()); !s.ok()) return s;
  std::vector<SqlRow> rows;
  Status s = c->Check(Execute(
      db, "UPDATE shortlink_sequences SET next_id = next_id + ? WHERE name = ?", {count, name}));
  if (s.ok()) {
    s = c->Check(
        Query(db, "SELECT next_id FROM shortlink_sequences WHERE name = ?", {name}, &rows));
  }
  if (!s.ok() || rows.empty()) {
    db.Rollback();
    return s.ok() ? Status(StatusCode::INTERNAL, "sequence " + name + " vanished") : s;
  }
  if (Status commit = c->Check(db.Commit()); !commit.ok()) return commit;
  *first = AsInt(rows[0][0]) - count;
  return Status::Ok();
}

Status LinkStore::CreateTenant(const std::string& name, int64_t now_ms, int64_t* tenant_id) {
  std::unique_ptr<SqlConnectionPool::Lease> c;
  if (Status s = pool_->Acquire(&c); !s.ok()) return s;
  if (Status s =
          c->Check(Execute(**c, "INSERT INTO shortlink_tenants (name, created_at_ms) VALUES (?, ?)",
                           {name, now_ms}));
      !s.ok()) {
    if (s.code() == StatusCode::ALREADY_EXISTS) {
      return Status(StatusCode::ALREADY_EXISTS, "tenant '" + name + "' exists");
    }
    return s;
  }
  std::vector<SqlRow> rows;
  if (Status s = c->Check(
          Query(**c, "SELECT tenant_id FROM shortlink_tenants WHERE name = ?", {name}, &rows));
      !s.ok()) {
    return s;
  }
  *tenant_id = rows.empty() ? 0 : AsInt(rows[0][0]);
  return Status::Ok();
}

Status LinkStore::TenantExists(int64_t tenant_id, bool* exists) {
  std::unique_ptr<SqlConnectionPool::Lease> c;
  if (Status s = pool_->Acquire(&c); !s.ok()) return s;
  std::vector<SqlRow> rows;
  Status s = c->Check(Query(**c, "SELECT tenant_id FROM shortlink_tenants WHERE tenant_id = ?",
                            {tenant_id}, &rows));
  *exists = !rows.empty();
  return s;
}

Status LinkStore::AddApiKey(int64_t tenant_id, const std::string& key_hash, int64_t now_ms,
                            int64_t* key_id) {
  std::unique_ptr<SqlConnectionPool::Lease> c;
  if (Status s = pool_->Acquire(&c); !s.ok()) return s;
  if (Status s = c->Check(Execute(**c,
                                  "INSERT INTO shortlink_api_keys (tenant_id, key_hash, "
                                  "created_at_ms) VALUES (?, ?, ?)",
                                  {tenant_id, key_hash, now_ms}));
      !s.ok()) {
    return s;
  }
  std::vector<SqlRow> rows;
  if (Status s = c->Check(Query(**c, "SELECT key_id FROM shortlink_api_keys WHERE key_hash = ?",
                                {key_hash}, &rows));
      !s.ok()) {
    return s;
  }
  *key_id = rows.empty() ? 0 : AsInt(rows[0][0]);
  return Status::Ok();
}

Status LinkStore::RevokeApiKey(int64_t key_id, int64_t now_ms) {
  std::unique_ptr<SqlConnectionPool::Lease> c;
  if (Status s = pool_->Acquire(&c); !s.ok()) return s;
  std::vector<SqlRow> rows;
  if (Status s = c->Check(
          Query(**c, "SELECT key_id FROM shortlink_api_keys WHERE key_id = ?", {key_id}, &rows));
      !s.ok()) {
    return s;
  }
  if (rows.empty()) {
    return Status(StatusCode::NOT_FOUND, "no API key " + std::to_string(key_id));
  }
  return c->Check(Execute(**c,
                          "UPDATE shortlink_api_keys SET revoked_at_ms = ? WHERE key_id = ? AND "
                          "revoked_at_ms IS NULL",
                          {now_ms, key_id}));
}

Status LinkStore::TenantForKey(const std::string& key_hash, int64_t* tenant_id) {
  std::unique_ptr<SqlConnectionPool::Lease> c;
  if (Status s = pool_->Acquire(&c); !s.ok()) return s;
  std::vector<SqlRow> rows;
  Status s = c->Check(Query(
      **c, "SELECT tenant_id FROM shortlink_api_keys WHERE key_hash = ? AND revoked_at_ms IS NULL",
      {key_hash}, &rows));
  *tenant_id = rows.empty() ? 0 : AsInt(rows[0][0]);
  return s;
}

std::unique_ptr<SqlConnectionPool> SqliteLinkDatabase(const std::string& path,
                                                      uint32_t connections) {
  const storage::SqliteOptions options{.path = path,
                                       .journal_mode = storage::SqliteJournalMode::kWal,
                                       .synchronous = storage::SqliteSynchronous::kNormal};
  return std::make_unique<SqlConnectionPool>(
      [options](std::unique_ptr<SqlConnection>* c) {
        return storage::SqliteConnection::Open(options, c);
      },
      connections);
}

std::unique_ptr<SqlConnectionPool> MariaDbLinkDatabase(storage::MariaDbOptions options,
                                                       uint32_t connections) {
  options.isolation = storage::MariaDbIsolation::kReadCommitted;
  return std::make_unique<SqlConnectionPool>(
      [options = std::move(options)](std::unique_ptr<SqlConnection>* c) {
        return storage::MariaDbConnection::Open(options, c);
      },
      connections);
}

}  // namespace ferry::shortlink
