#include "storage/local_link_cache.h"

namespace ferry::shortlink {

namespace {
using Clock = std::chrono::steady_clock;
}

Status LocalLinkCache::Get(const std::string& code, CacheLookup* lookup, CachedLink* link) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(code);
  if (it == entries_.end() || it->second.deadline <= Clock::now()) {
    *lookup = CacheLookup::kMiss;
    return Status::Ok();
  }
  *lookup = it->second.absent ? CacheLookup::kAbsent : CacheLookup::kLink;
  if (!it->second.absent) *link = it->second.link;
  return Status::Ok();
}

Status LocalLinkCache::PutNewer(const std::string& code, const CachedLink& link, int64_t ttl_ms) {
  std::lock_guard lock(mu_);
  if (entries_.size() >= max_entries_) entries_.clear();
  Entry& e = entries_[code];
  if (!e.absent && !Supersedes(link, e.link) && e.deadline > Clock::now()) {
    return Status::Ok();
  }
  e = Entry{
      .absent = false, .link = link, .deadline = Clock::now() + std::chrono::milliseconds(ttl_ms)};
  return Status::Ok();
}

Status LocalLinkCache::PutAbsent(const std::string& code, int64_t ttl_ms) {
  std::lock_guard lock(mu_);
  if (entries_.size() >= max_entries_) entries_.clear();
  auto [it, inserted] = entries_.try_emplace(code);
  if (!inserted && it->second.deadline > Clock::now()) return Status::Ok();
  it->second = Entry{
      .absent = true, .link = {}, .deadline = Clock::now() + std::chrono::milliseconds(ttl_ms)};
  return Status::Ok();
}

Status LocalLinkCache::DropOlder(const std::string& code, int64_t version) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(code);
  if (it != entries_.end() && (it->second.absent || it->second.link.version < version)) {
    entries_.erase(it);
  }
  return Status::Ok();
}

}  // namespace ferry::shortlink
