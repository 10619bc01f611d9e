#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "ferry/codec/status.h"

namespace ferry::shortlink {

// What a redirect needs of a link, as the caches keep it.
struct CachedLink {
  int64_t version = 0;
  std::string long_url;
  int64_t expires_at_ms = 0;
  int64_t max_visits = 0;
  bool disabled = false;
  bool purged = false;
  // Its visits ran out at this version. A version's limit never comes back (visits only grow;
  // raising the limit makes a new version), so this is cached like the rest.
  bool exhausted = false;
  bool deleted = false;
  std::string expired_url;    // where an expired link sends visitors; empty: 410
  bool forward_query = true;  // the visit's query string goes on to the target
};

// Whether a cache holding `held` should take `offered`: a newer version, or the same version
// found used up.
inline bool Supersedes(const CachedLink& offered, const CachedLink& held) {
  return offered.version > held.version ||
         (offered.version == held.version && offered.exhausted && !held.exhausted);
}

enum class CacheLookup { kMiss, kLink, kAbsent };

// code -> link, shared by the providers of a backend (Redis for redis+mariadb; in-process for
// embedded, whose database has one provider). Entries carry the link's version, and a write
// never replaces a newer one, so a reader filling the cache with what it read before an update
// cannot undo the update's own write.
class LinkCache {
 public:
  virtual ~LinkCache() = default;
  virtual Status Get(const std::string& code, CacheLookup* lookup, CachedLink* link) = 0;
  // Stores `link` when it supersedes the entry (Supersedes); replaces an absent entry.
  virtual Status PutNewer(const std::string& code, const CachedLink& link, int64_t ttl_ms) = 0;
  // Remembers that `code` does not exist, only where the cache holds nothing for it.
  virtual Status PutAbsent(const std::string& code, int64_t ttl_ms) = 0;
  // Drops the entry when it holds a version older than `version` (or says "no such code"):
  // the next read goes to the database.
  virtual Status DropOlder(const std::string& code, int64_t version) = 0;
};

enum class FilterAnswer { kNo, kMaybe, kUnknown };

// What a filter is filled from: the database's codes, and how many there are.
struct CodeSource {
  std::function<Status(uint64_t*)> count;
  std::function<Status(const std::function<void(const std::string&)>&)> for_each;
};

// A Bloom filter of every code that exists. kNo is certain (no false negatives once loaded);
// kUnknown while it is not loaded (at start, after Redis lost it), and the caller must then
// ask the database: a real new link is never refused by a filter that is behind.
class CodeFilter {
 public:
  virtual ~CodeFilter() = default;
  virtual Status Check(const std::string& code, FilterAnswer* answer) = 0;
  virtual Status Add(const std::string& code) = 0;
  // Loads it when it is missing or lost, and builds a larger one when it holds more codes than
  // its shape keeps under the target false-positive rate; a no-op otherwise.
  virtual Status Maintain(const CodeSource& codes) = 0;
};

}  // namespace ferry::shortlink
