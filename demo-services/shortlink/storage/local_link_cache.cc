#include "storage/local_link_cache.h"

namespace ferry::shortlink {

namespace {
using Clock = std::chrono::steady_clock;
}

Status LocalLinkCache::Get(const std::string& code, CacheLookup* lookup, CachedLink* link) {
  std::optional<Entry> entry = entries_.Get(code);
  if (!entry || entry->deadline <= Clock::now()) {
    *lookup = CacheLookup::kMiss;
    return Status::Ok();
  }
  *lookup = entry->absent ? CacheLookup::kAbsent : CacheLookup::kLink;
  if (!entry->absent) *link = std::move(entry->link);
  return Status::Ok();
}

Status LocalLinkCache::PutNewer(const std::string& code, const CachedLink& link, int64_t ttl_ms) {
  const Clock::time_point now = Clock::now();
  entries_.Update(code, [&](std::optional<Entry>& slot) {
    if (slot && !slot->absent && !Supersedes(link, slot->link) && slot->deadline > now) return;
    slot =
        Entry{.absent = false, .link = link, .deadline = now + std::chrono::milliseconds(ttl_ms)};
  });
  return Status::Ok();
}

Status LocalLinkCache::PutAbsent(const std::string& code, int64_t ttl_ms) {
  const Clock::time_point now = Clock::now();
  entries_.Update(code, [&](std::optional<Entry>& slot) {
    if (slot && slot->deadline > now) return;
    slot = Entry{.absent = true, .link = {}, .deadline = now + std::chrono::milliseconds(ttl_ms)};
  });
  return Status::Ok();
}

Status LocalLinkCache::DropOlder(const std::string& code, int64_t version) {
  entries_.Update(code, [version](std::optional<Entry>& slot) {
    if (slot && (slot->absent || slot->link.version < version)) slot.reset();
  });
  return Status::Ok();
}

}  // namespace ferry::shortlink
