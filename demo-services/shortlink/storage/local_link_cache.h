#pragma once

#include <chrono>
#include <string>

#include "ferry/storage/sharded_lru.h"
#include "storage/link_cache.h"

namespace ferry::shortlink {

// The embedded backend's cache, and the Redis backend's fallback while Redis fails: in this
// process, bounded, the least recently used entries evicted when full.
class LocalLinkCache final : public LinkCache {
 public:
  explicit LocalLinkCache(size_t max_entries) : entries_(max_entries) {}
  Status Get(const std::string& code, CacheLookup* lookup, CachedLink* link) override;
  Status PutNewer(const std::string& code, const CachedLink& link, int64_t ttl_ms) override;
  Status PutAbsent(const std::string& code, int64_t ttl_ms) override;
  Status DropOlder(const std::string& code, int64_t version) override;

 private:
  struct Entry {
    bool absent = false;
    CachedLink link;
    std::chrono::steady_clock::time_point deadline;
  };
  storage::ShardedLru<std::string, Entry> entries_;
};

}  // namespace ferry::shortlink
