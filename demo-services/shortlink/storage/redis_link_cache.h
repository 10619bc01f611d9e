#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "ferry/storage/redis_connection_pool.h"
#include "ferry/storage/redis_script_set.h"
#include "storage/link_cache.h"

namespace ferry::shortlink {

// The redis+mariadb backend's cache: `shortlink:link:g<generation>:<code>` holds the link (or
// "-" for a code that does not exist), with a PX TTL; the version check runs in a Lua script.
// Named by the Redis generation: after a restart, a restore from an older copy or a failover,
// what the old generation cached (versions the database has since changed) is never read
// again, and expires.
class RedisLinkCache final : public LinkCache {
 public:
  // `generation`: the Redis generation (0: not known yet; every call is then UNAVAILABLE).
  RedisLinkCache(storage::RedisConnectionPool* pool, std::function<int64_t()> generation);
  Status Get(const std::string& code, CacheLookup* lookup, CachedLink* link) override;
  Status PutNewer(const std::string& code, const CachedLink& link, int64_t ttl_ms) override;
  Status PutAbsent(const std::string& code, int64_t ttl_ms) override;
  Status DropOlder(const std::string& code, int64_t version) override;

 private:
  Status Key(const std::string& code, std::string* key) const;

  storage::RedisConnectionPool* const pool_;
  storage::RedisScriptSet scripts_;
  const std::function<int64_t()> generation_;
};

}  // namespace ferry::shortlink
