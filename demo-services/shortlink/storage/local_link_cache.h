#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "storage/link_cache.h"

namespace ferry::shortlink {

// The embedded backend's cache: in this process, bounded (emptied when full).
class LocalLinkCache final : public LinkCache {
 public:
  explicit LocalLinkCache(size_t max_entries) : max_entries_(max_entries) {}
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
  const size_t max_entries_;
  std::mutex mu_;
  std::unordered_map<std::string, Entry> entries_;
};

}  // namespace ferry::shortlink
