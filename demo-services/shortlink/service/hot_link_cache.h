#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "storage/link_cache.h"

namespace ferry::shortlink {

// Hot codes in this process, each kept at most `max_age` (<= 1 s): how stale another
// provider's view of an update or disable can be. This provider's own changes invalidate it.
class HotLinkCache {
 public:
  HotLinkCache(std::chrono::milliseconds max_age, size_t max_entries)
      : max_age_(max_age), max_entries_(max_entries) {}

  std::optional<CachedLink> Get(const std::string& code) { return GetStale(code, max_age_); }
  // An entry up to `max_age` old: while Redis is failing, a link seen lately is better than a
  // database query (changes made meanwhile still reach this provider through the change log).
  std::optional<CachedLink> GetStale(const std::string& code, std::chrono::milliseconds max_age) {
    std::lock_guard lock(mu_);
    auto it = entries_.find(code);
    if (it == entries_.end()) return std::nullopt;
    // Expired entries stay until replaced or the cache is full: they are the fallback.
    if (std::chrono::steady_clock::now() - it->second.loaded > max_age) return std::nullopt;
    return it->second.link;
  }
  void Put(const std::string& code, const CachedLink& link) {
    if (max_age_.count() == 0) return;
    std::lock_guard lock(mu_);
    if (entries_.size() >= max_entries_) entries_.clear();
    entries_[code] = Entry{link, std::chrono::steady_clock::now()};
  }
  void Invalidate(const std::string& code) {
    std::lock_guard lock(mu_);
    entries_.erase(code);
  }
  void Clear() {
    std::lock_guard lock(mu_);
    entries_.clear();
  }

 private:
  struct Entry {
    CachedLink link;
    std::chrono::steady_clock::time_point loaded;
  };
  const std::chrono::milliseconds max_age_;
  const size_t max_entries_;
  std::mutex mu_;
  std::unordered_map<std::string, Entry> entries_;
};

}  // namespace ferry::shortlink
