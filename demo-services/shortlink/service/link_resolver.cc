#include "service/link_resolver.h"

#include <algorithm>

#include "ferry/framework/logging.h"
#include "service/shortlink_metrics.h"

#include <spdlog/spdlog.h>

namespace ferry::shortlink {

CachedLink LinkResolver::FromRecord(const LinkRecord& link) {
  return CachedLink{.version = link.version,
                    .long_url = link.long_url,
                    .expires_at_ms = link.expires_at_ms,
                    .max_visits = link.max_visits,
                    .disabled = link.disabled,
                    .purged = link.purged,
                    .deleted = link.deleted_at_ms != 0,
                    .expired_url = link.expired_url,
                    .forward_query = link.forward_query};
}

int64_t LinkResolver::TtlFor(const CachedLink& link) const {
  if (link.expires_at_ms == 0 || link.purged) return options_.cache_ttl_ms;
  const int64_t left = link.expires_at_ms - now_ms_();
  // An expired link is kept briefly, as an unknown code is: its answer (410) no longer changes.
  if (left <= 0) return options_.absent_ttl_ms;
  return std::min(options_.cache_ttl_ms, left);
}

bool LinkResolver::Unpublished(const std::string& code) {
  if (unpublished_count_.load(std::memory_order_acquire) == 0) return false;
  std::lock_guard lock(mu_);
  return unpublished_.contains(code);
}

LinkResolver::LinkPtr LinkResolver::Hot(const std::string& code) {
  if (Unpublished(code)) return nullptr;
  return hot_->Get(code);
}

Status LinkResolver::Lookup(const std::string& code, LinkPtr* out) {
  if (Unpublished(code)) {
    std::optional<LinkRecord> record;
    if (Status s = store_->FindByCode(code, &record); !s.ok()) return s;
    out->reset();
    if (record) *out = std::make_shared<const CachedLink>(FromRecord(*record));
    return Status::Ok();
  }
  if (LinkPtr hot = hot_->Get(code)) {
    *out = std::move(hot);
    return Status::Ok();
  }
  if (degraded_.breaker == nullptr) {
    bool redis_failed = false;
    return LookupShared(code, out, &redis_failed);
  }
  if (!degraded_.breaker->Allow()) return LookupDegraded(code, out);
  bool redis_failed = false;
  Status s = LookupShared(code, out, &redis_failed);
  if (redis_failed) {
    degraded_.breaker->Failed();
  } else {
    degraded_.breaker->Succeeded();
  }
  return s;
}

Status LinkResolver::LookupShared(const std::string& code, LinkPtr* out, bool* redis_failed) {
  CacheLookup lookup = CacheLookup::kMiss;
  CachedLink cached;
  if (Status s = read_cache_->Get(code, &lookup, &cached); !s.ok()) {
    Logger().warn("shortlink: cache read of {}: {}", code, s.ToString());
    *redis_failed = true;
    lookup = CacheLookup::kMiss;
  }
  if (lookup == CacheLookup::kAbsent) {
    Metrics().absent_hits->Increment();
    out->reset();
    return Status::Ok();
  }
  if (lookup == CacheLookup::kLink) {
    *out = std::make_shared<const CachedLink>(std::move(cached));
    hot_->Put(code, *out);
    return Status::Ok();
  }
  FilterAnswer answer = FilterAnswer::kUnknown;
  if (*redis_failed) {
    // Redis just failed this lookup: asking it again would only double the wait.
  } else if (Status s = read_filter_->Check(code, &answer); !s.ok()) {
    Logger().warn("shortlink: filter check of {}: {}", code, s.ToString());
    *redis_failed = true;
    answer = FilterAnswer::kUnknown;
  }
  if (answer == FilterAnswer::kNo) {
    Metrics().filter_rejects->Increment();
    out->reset();
    return Status::Ok();
  }
  std::optional<LinkRecord> record;
  if (Status s = store_->FindByCode(code, &record); !s.ok()) return s;
  if (!record) {
    if (*redis_failed) {
      if (degraded_.local) (void)degraded_.local->PutAbsent(code, options_.absent_ttl_ms);
    } else if (Status s = read_cache_->PutAbsent(code, options_.absent_ttl_ms); !s.ok()) {
      Logger().warn("shortlink: cache write of {}: {}", code, s.ToString());
    }
    out->reset();
    return Status::Ok();
  }
  auto link = std::make_shared<const CachedLink>(FromRecord(*record));
  if (!*redis_failed) {
    if (Status s = read_cache_->PutNewer(code, *link, TtlFor(*link)); !s.ok()) {
      Logger().warn("shortlink: cache write of {}: {}", code, s.ToString());
    }
  }
  hot_->Put(code, link);
  *out = std::move(link);
  return Status::Ok();
}

Status LinkResolver::LookupDegraded(const std::string& code, LinkPtr* out) {
  if (LinkPtr stale = hot_->GetStale(code, degraded_.stale)) {
    *out = std::move(stale);
    return Status::Ok();
  }
  CacheLookup lookup = CacheLookup::kMiss;
  CachedLink cached;
  (void)degraded_.local->Get(code, &lookup, &cached);
  if (lookup != CacheLookup::kMiss) {
    out->reset();
    if (lookup == CacheLookup::kLink) *out = std::make_shared<const CachedLink>(std::move(cached));
    return Status::Ok();
  }
  if (!degraded_.database->Take()) {
    Metrics().fallback_refusals->Increment();
    return Status(StatusCode::UNAVAILABLE,
                  "Redis is failing and the database's share of its lookups is used up");
  }
  std::optional<LinkRecord> record;
  if (Status s = store_->FindByCode(code, &record); !s.ok()) return s;
  out->reset();
  if (!record) return degraded_.local->PutAbsent(code, options_.absent_ttl_ms);
  auto link = std::make_shared<const CachedLink>(FromRecord(*record));
  (void)degraded_.local->PutNewer(code, *link, TtlFor(*link));
  hot_->Put(code, link);
  *out = std::move(link);
  return Status::Ok();
}

void LinkResolver::Publish(const LinkRecord& record) {
  const CachedLink link = FromRecord(record);
  hot_->Invalidate(record.code);
  if (Status s = filter_->Add(record.code); !s.ok()) {
    Logger().warn("shortlink: filter add of {}: {}", record.code, s.ToString());
  }
  if (Status s = cache_->PutNewer(record.code, link, TtlFor(link)); !s.ok()) {
    Logger().warn("shortlink: cache write of {}: {}; retried until Redis answers", record.code,
                  s.ToString());
    std::lock_guard lock(mu_);
    unpublished_.insert(record.code);
    unpublished_count_.store(unpublished_.size(), std::memory_order_release);
  }
}

void LinkResolver::Learn(const std::string& code, int64_t version) {
  hot_->InvalidateOlder(code, version);
  if (degraded_.local) (void)degraded_.local->DropOlder(code, version);
  if (Status s = cache_->DropOlder(code, version); !s.ok()) {
    Logger().warn("shortlink: cache drop of {}: {}", code, s.ToString());
  }
  if (Status s = filter_->Add(code); !s.ok()) {
    Logger().warn("shortlink: filter add of {}: {}", code, s.ToString());
  }
}

void LinkResolver::MarkExhausted(const std::string& code, CachedLink link) {
  link.exhausted = true;
  hot_->Put(code, std::make_shared<const CachedLink>(link));
  if (Status s = cache_->PutNewer(code, link, TtlFor(link)); !s.ok()) {
    Logger().warn("shortlink: cache write of {}: {}", code, s.ToString());
  }
}

bool LinkResolver::RetryUnpublished() {
  std::vector<std::string> codes;
  {
    std::lock_guard lock(mu_);
    codes.assign(unpublished_.begin(), unpublished_.end());
  }
  for (const std::string& code : codes) {
    std::optional<LinkRecord> record;
    if (!store_->FindByCode(code, &record).ok()) return false;
    if (record) {
      const CachedLink link = FromRecord(*record);
      if (!cache_->PutNewer(code, link, TtlFor(link)).ok()) return false;
    }
    std::lock_guard lock(mu_);
    unpublished_.erase(code);
    unpublished_count_.store(unpublished_.size(), std::memory_order_release);
  }
  std::lock_guard lock(mu_);
  return unpublished_.empty();
}

}  // namespace ferry::shortlink
