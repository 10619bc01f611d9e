#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "ferry/storage/redis_connection_pool.h"
#include "ferry/storage/redis_script_set.h"
#include "storage/link_cache.h"

namespace ferry::shortlink {

// The redis+mariadb backend's cache: `shortlink:link:{code}` holds the link (or "-" for a
// code that does not exist), with a PX TTL; the version check runs in a Lua script.
class RedisLinkCache final : public LinkCache {
 public:
  explicit RedisLinkCache(storage::RedisConnectionPool* pool);
  Status Get(const std::string& code, CacheLookup* lookup, CachedLink* link) override;
  Status PutNewer(const std::string& code, const CachedLink& link, int64_t ttl_ms) override;
  Status PutAbsent(const std::string& code, int64_t ttl_ms) override;

 private:
  storage::RedisConnectionPool* const pool_;
  storage::RedisScriptSet scripts_;
};

// A Bloom filter over a Redis bitmap (`shortlink:bloom`), shared by every provider, so a code
// one provider created is in the filter of all at once. `shortlink:bloom:loaded` says it
// holds every code of the database: without it (a fresh or flushed Redis) Check answers
// kUnknown until LoadIfNeeded has filled it again. Each check and each add is one Lua call
// over its k positions. An add that failed (Redis unreachable) may be missing from a filter
// still marked loaded (a Redis with an append-only file comes back with the flag): this
// provider then answers kUnknown itself, and its next LoadIfNeeded drops the flag and reloads.
class RedisCodeFilter final : public CodeFilter {
 public:
  RedisCodeFilter(storage::RedisConnectionPool* pool, uint64_t bits, int hashes);
  Status Check(const std::string& code, FilterAnswer* answer) override;
  Status Add(const std::string& code) override;
  Status LoadIfNeeded(const std::function<Status(const std::function<void(const std::string&)>&)>&
                          for_each_code) override;

 private:
  Status LoadIfMissing(
      const std::function<Status(const std::function<void(const std::string&)>&)>& for_each_code);

  storage::RedisConnectionPool* const pool_;
  storage::RedisScriptSet scripts_;
  const uint64_t bits_;
  const int hashes_;
  std::atomic<bool> suspect_{false};  // an add failed since the last complete load
};

}  // namespace ferry::shortlink
