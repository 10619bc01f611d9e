#include "storage/local_link_cache.h"

#include "storage/bloom_positions.h"

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

LocalCodeFilter::LocalCodeFilter(uint64_t bits, int hashes)
    : bits_(bits), hashes_(hashes), words_((bits + 63) / 64, 0) {}

Status LocalCodeFilter::Check(const std::string& code, FilterAnswer* answer) {
  std::lock_guard lock(mu_);
  if (!loaded_) {
    *answer = FilterAnswer::kUnknown;
    return Status::Ok();
  }
  for (uint64_t p : BloomPositions(code, bits_, hashes_)) {
    if ((words_[p / 64] & (1ull << (p % 64))) == 0) {
      *answer = FilterAnswer::kNo;
      return Status::Ok();
    }
  }
  *answer = FilterAnswer::kMaybe;
  return Status::Ok();
}

Status LocalCodeFilter::Add(const std::string& code) {
  std::lock_guard lock(mu_);
  for (uint64_t p : BloomPositions(code, bits_, hashes_)) words_[p / 64] |= 1ull << (p % 64);
  return Status::Ok();
}

Status LocalCodeFilter::LoadIfNeeded(
    const std::function<Status(const std::function<void(const std::string&)>&)>& for_each_code) {
  {
    std::lock_guard lock(mu_);
    if (loaded_) return Status::Ok();
  }
  // Creates meanwhile Add() their codes themselves, so the filter is complete once this ends.
  if (Status s = for_each_code([this](const std::string& code) { Add(code); }); !s.ok()) return s;
  std::lock_guard lock(mu_);
  loaded_ = true;
  return Status::Ok();
}

}  // namespace ferry::shortlink
