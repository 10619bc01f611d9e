#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ferry/codec/status.h"
#include "ferry/storage/mariadb_connection.h"
#include "ferry/storage/sql_connection_pool.h"

namespace ferry::shortlink {

// One row of `links`. A row is never deleted (DeleteLink erases what it says, not the row), so a
// code is never given to another link.
struct LinkRecord {
  std::string code;  // the link's key (LinkKey): the code, after "<domain>/" on a custom domain
  int64_t tenant_id = 0;
  std::string request_id;
  std::string fingerprint;  // of the creating request's parameters
  std::string long_url;
  std::string dedup_hash;  // empty: not deduplicated
  int64_t created_at_ms = 0;
  int64_t expires_at_ms = 0;  // 0: none
  int64_t max_visits = 0;     // 0: none
  int64_t visits = 0;
  int64_t version = 1;  // bumped by every change; caches keep the newest
  bool disabled = false;
  // The target is gone and the code stays taken: deleted, or expired and cleaned up by a
  // version that purged expired links.
  bool purged = false;
  std::string expired_url;    // where visitors go once it expired; empty: 410
  int64_t deleted_at_ms = 0;  // DeleteLink; 0: not deleted
  std::string domain;         // empty: the service's own
  bool forward_query = true;  // a visit's query string is appended to the target's
  std::string title;
  std::vector<std::string> tags;  // sorted, distinct
};

// Which of a tenant's links ListLinks returns, newest first: all words in the code, title or
// target (case-insensitive), the tag, the domain; after the page token's link.
struct LinkListing {
  std::vector<std::string> words;
  std::string tag;                    // empty: any
  std::optional<std::string> domain;  // absent: any
  // The last link of the previous page (created_at_ms, key); created 0: from the newest.
  int64_t before_created_ms = 0;
  std::string before_code;
  int limit = 100;
};

// One row of the change log: a link got `version`.
struct LoggedChange {
  int64_t id = 0;
  std::string code;
  int64_t version = 0;
};

// Every change makes a new version and ends deduplication to the link (a create with dedup
// then makes a new link): only an unchanged link is "the link for this URL and options".
struct LinkChange {
  std::optional<std::string> long_url;
  std::optional<int64_t> expires_at_ms;
  std::optional<int64_t> max_visits;
  std::optional<std::string> expired_url;  // empty: none
  // The visits a limit counts from are at least this: the redirects counted while the link had
  // no limit.
  std::optional<int64_t> visits_at_least;
  bool disable = false;
  bool enable = false;
  std::optional<std::string> title;
  std::optional<bool> forward_query;
  std::optional<std::vector<std::string>> tags;
};

// The short-link tables, on SQLite (embedded) or MariaDB (redis+mariadb): one implementation,
// with the dialects' DDL apart. Every statement counts in queries(), so tests and the
// `shortlink_db_queries_total` metric see what the read path costs the database.
class LinkStore {
 public:
  explicit LinkStore(std::unique_ptr<storage::SqlConnectionPool> pool) : pool_(std::move(pool)) {}

  Status Initialize();

  // ALREADY_EXISTS when the code, the (tenant, request id) or the (tenant, dedup hash) is taken.
  Status InsertLink(const LinkRecord& link);
  Status FindByCode(const std::string& code, std::optional<LinkRecord>* out);
  Status FindByRequest(int64_t tenant_id, const std::string& request_id,
                       std::optional<LinkRecord>* out);
  Status FindByDedup(int64_t tenant_id, const std::string& dedup_hash,
                     std::optional<LinkRecord>* out);
  // Takes `code`'s dedup hash away (it holds `dedup_hash` no more): the link is no longer live,
  // and the next create with dedup makes a new one.
  Status ReleaseDedup(const std::string& code, const std::string& dedup_hash);
  // NOT_FOUND unless the tenant owns the code and it is not purged; *out is the changed row.
  Status ChangeLink(int64_t tenant_id, const std::string& code, const LinkChange& change,
                    LinkRecord* out);
  // Erases the target, the expired URL, the dedup hash and the request's fingerprint; the row
  // stays, purged and marked deleted, so the code is never reused. Deleting a deleted link
  // changes nothing. NOT_FOUND unless the tenant owns the code.
  Status DeleteLink(int64_t tenant_id, const std::string& code, int64_t now_ms, LinkRecord* out);
  Status ListLinks(int64_t tenant_id, const LinkListing& listing, std::vector<LinkRecord>* out);
  // Counts one visit of a limited link when it has visits left: one conditional UPDATE, so K
  // visits are admitted exactly, whatever the concurrency and however many providers.
  Status AdmitVisit(const std::string& code, int64_t now_ms, bool* admitted);
  // Every create, change and delete is logged in its own transaction (`shortlink_changes`), so
  // other providers learn of it from the database even when the cache or filter write that was
  // to tell them got lost. The changes logged at or after `since_ms`, oldest first.
  Status ChangesSince(int64_t since_ms, std::vector<LoggedChange>* out);
  Status ForgetChangesBefore(int64_t before_ms);
  // The codes of links deleted at or after `since_ms`.
  Status DeletedSince(int64_t since_ms, std::vector<std::string>* codes);
  // A secret of the service's, made once (256 random bits, hex) and shared by every provider of
  // the database: `visitor` for visitor hashes, `bloom` for the Bloom filter's positions.
  Status SharedSecret(const std::string& name, std::string* secret);
  // The number of links (every row), for sizing a Bloom filter.
  Status CountLinks(uint64_t* count);
  // Every code, for filling a Bloom filter.
  Status ForEachCode(const std::function<void(const std::string&)>& visit);
  // Leases ids [*first, *first + count) of sequence `name`: one atomic UPDATE, so leases never
  // overlap and, being committed, never go backwards after a restart.
  Status LeaseIds(const std::string& name, int64_t count, int64_t* first);

  Status CreateTenant(const std::string& name, int64_t now_ms, int64_t* tenant_id);
  Status TenantExists(int64_t tenant_id, bool* exists);
  Status AddApiKey(int64_t tenant_id, const std::string& key_hash, int64_t now_ms, int64_t* key_id);
  // NOT_FOUND for an unknown key id.
  Status RevokeApiKey(int64_t key_id, int64_t now_ms);
  // The tenant of an unrevoked key, or 0.
  Status TenantForKey(const std::string& key_hash, int64_t* tenant_id);

  // For stores of other tables on the same database (DomainStore).
  storage::SqlConnectionPool* pool() { return pool_.get(); }

  uint64_t queries() const { return queries_.load(std::memory_order_relaxed); }
  // Called after every statement counted in queries() (the provider's metric); before use.
  void set_query_observer(std::function<void()> observer) { observer_ = std::move(observer); }

 private:
  Status Query(storage::SqlConnection& c, std::string_view sql,
               const std::vector<storage::SqlValue>& params, std::vector<storage::SqlRow>* rows);
  Status Execute(storage::SqlConnection& c, std::string_view sql,
                 const std::vector<storage::SqlValue>& params, int64_t* affected = nullptr);
  Status LogChange(storage::SqlConnection& db, const LinkRecord& changed);
  // The tags table's rows of `code`: exactly `tags`.
  Status ReplaceTags(storage::SqlConnection& db, int64_t tenant_id, const std::string& code,
                     const std::vector<std::string>& tags);
  Status FindOne(std::string_view where, const std::vector<storage::SqlValue>& params,
                 std::optional<LinkRecord>* out);

  std::unique_ptr<storage::SqlConnectionPool> pool_;
  std::atomic<uint64_t> queries_{0};
  std::function<void()> observer_;
};

// Connection pools for the two backends.
std::unique_ptr<storage::SqlConnectionPool> SqliteLinkDatabase(const std::string& path,
                                                               uint32_t connections);
std::unique_ptr<storage::SqlConnectionPool> MariaDbLinkDatabase(storage::MariaDbOptions options,
                                                                uint32_t connections);

}  // namespace ferry::shortlink
