#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>

#include "service/circuit_breaker.h"
#include "service/hot_link_cache.h"
#include "service/rate_limiter.h"
#include "storage/link_cache.h"
#include "storage/link_store.h"

namespace ferry::shortlink {

struct ResolverOptions {
  int64_t cache_ttl_ms = 3'600'000;  // positive entries; never beyond the link's expiry
  int64_t absent_ttl_ms = 60'000;    // null entries for codes that do not exist
};

// How lookups behave when a shared cache (Redis) is failing. The breaker watches the lookups'
// calls (made with a short timeout by the shared cache and filter given here); while it is
// open, no call is made: hot entries up to `stale` old answer, then `local` (an in-process
// cache of what the database answered meanwhile, links and unknown codes alike), then the
// database, at most as fast as `database` allows (past it: UNAVAILABLE, a 503), so a Redis
// outage does not become a database outage.
struct DegradedReads {
  CircuitBreaker* breaker = nullptr;
  LinkCache* local = nullptr;
  RateLimiter* database = nullptr;
  std::chrono::milliseconds stale{60'000};
};

// The read path: hot in-process cache -> shared cache (Redis or local) -> Bloom filter ->
// database, filling the caches on the way back. A code the filter rules out costs no query;
// one the database does not have gets a null entry, so repeating it costs none either. Cache
// and filter failures (Redis down or restarted) fall through to the database: redirects keep
// working, only slower.
class LinkResolver {
 public:
  // `read_cache` and `read_filter` serve lookups (for Redis: over connections with a short
  // timeout), `cache` and `filter` the writes of changes; `degraded.breaker` null: lookups
  // always use them.
  LinkResolver(LinkStore* store, LinkCache* cache, CodeFilter* filter, HotLinkCache* hot,
               ResolverOptions options, std::function<int64_t()> now_ms,
               LinkCache* read_cache = nullptr, CodeFilter* read_filter = nullptr,
               DegradedReads degraded = {})
      : store_(store),
        cache_(cache),
        filter_(filter),
        read_cache_(read_cache ? read_cache : cache),
        read_filter_(read_filter ? read_filter : filter),
        hot_(hot),
        options_(options),
        degraded_(degraded),
        now_ms_(std::move(now_ms)) {}

  using LinkPtr = HotLinkCache::LinkPtr;

  // *out is null for a code that does not exist. May block on Redis and the database.
  Status Lookup(const std::string& code, LinkPtr* out);
  // The link as this process holds it, without blocking: null when only Redis or the database
  // can tell (not hot, or not published yet).
  LinkPtr Hot(const std::string& code);
  // After a create or change committed: the caches hold the new version, the filter the code.
  // A cache write that fails (Redis unreachable) leaves the code unpublished: this provider
  // reads it from the database, and RetryUnpublished() writes it once Redis answers, since a
  // Redis that kept its data (append-only file) would otherwise serve the old version until
  // its TTL.
  void Publish(const LinkRecord& link);
  // Some provider created or changed `code`, now at `version` (the database's change log says
  // so): the caches forget anything older and the filter has the code, even if that provider's
  // own writes were lost.
  void Learn(const std::string& code, int64_t version);
  // The link's visits ran out at `link`'s version: the caches answer EXHAUSTED from now on,
  // without asking the database again.
  void MarkExhausted(const std::string& code, CachedLink link);
  // Writes the unpublished codes' current versions to the cache; true when none is left.
  bool RetryUnpublished();

  static CachedLink FromRecord(const LinkRecord& link);

 private:
  int64_t TtlFor(const CachedLink& link) const;
  // The lookup through the shared cache and filter; *redis_failed when a call to them failed.
  Status LookupShared(const std::string& code, LinkPtr* out, bool* redis_failed);
  // The lookup while the breaker is open: no shared cache or filter.
  Status LookupDegraded(const std::string& code, LinkPtr* out);
  bool Unpublished(const std::string& code);

  LinkStore* const store_;
  LinkCache* const cache_;
  CodeFilter* const filter_;
  LinkCache* const read_cache_;
  CodeFilter* const read_filter_;
  HotLinkCache* const hot_;
  const ResolverOptions options_;
  const DegradedReads degraded_;
  const std::function<int64_t()> now_ms_;
  std::mutex mu_;
  std::unordered_set<std::string> unpublished_;  // guarded by mu_
  // unpublished_.size(), read without the lock: lookups take it only while some code is
  // unpublished (Redis refused a write), not on every redirect.
  std::atomic<size_t> unpublished_count_{0};
};

}  // namespace ferry::shortlink
