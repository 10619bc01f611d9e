#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "ferry/storage/sharded_lru.h"
#include "storage/link_cache.h"

namespace ferry::shortlink {

// Hot codes in this process, each kept at most `max_age` (<= 1 s): how stale another
// provider's view of an update or disable can be. This provider's own changes invalidate it.
// Links are shared, not copied: a hit costs a reference count, not its long_url.
class HotLinkCache {
 public:
  using LinkPtr = std::shared_ptr<const CachedLink>;

  HotLinkCache(std::chrono::milliseconds max_age, size_t max_entries)
      : max_age_(max_age), entries_(max_entries) {}

  LinkPtr Get(const std::string& code) { return GetStale(code, max_age_); }
  // An entry up to `max_age` old: while Redis is failing, a link seen lately is better than a
  // database query (changes made meanwhile still reach this provider through the change log).
  LinkPtr GetStale(const std::string& code, std::chrono::milliseconds max_age) {
    std::optional<Entry> entry = entries_.Get(code);
    // Expired entries stay until replaced or evicted: they are the fallback.
    if (!entry || std::chrono::steady_clock::now() - entry->loaded > max_age) return nullptr;
    return std::move(entry->link);
  }
  void Put(const std::string& code, LinkPtr link) {
    if (max_age_.count() == 0) return;
    entries_.Put(code, Entry{std::move(link), std::chrono::steady_clock::now()});
  }
  void Invalidate(const std::string& code) { entries_.Erase(code); }
  // Forgets an entry older than `version`, however old the entry.
  void InvalidateOlder(const std::string& code, int64_t version) {
    entries_.Update(code, [version](std::optional<Entry>& slot) {
      if (slot && slot->link->version < version) slot.reset();
    });
  }
  void Clear() { entries_.Clear(); }

 private:
  struct Entry {
    LinkPtr link;
    std::chrono::steady_clock::time_point loaded;
  };
  const std::chrono::milliseconds max_age_;
  storage::ShardedLru<std::string, Entry> entries_;
};

}  // namespace ferry::shortlink
