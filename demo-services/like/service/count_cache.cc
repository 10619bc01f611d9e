#include "service/count_cache.h"

namespace ferry::like {

int64_t CountCache::Sum(const std::vector<int64_t>& buckets) {
  int64_t sum = 0;
  for (int64_t n : buckets) sum += n;
  return sum;
}

Status CountCache::Total(int64_t content_id, int64_t* total) {
  const auto now = clock_();
  {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(content_id);
    if (it != entries_.end() && now - it->second.loaded < max_age_) {
      *total = Sum(it->second.buckets);
      return Status::Ok();
    }
  }
  std::vector<int64_t> buckets;
  if (Status s = loader_(content_id, &buckets); !s.ok()) return s;
  *total = Sum(buckets);
  if (max_age_.count() == 0) return Status::Ok();
  std::lock_guard lock(mutex_);
  // Crude bound: a full cache starts over (entries live a second or two anyway).
  if (entries_.size() >= max_entries_) entries_.clear();
  entries_[content_id] = Entry{std::move(buckets), now};
  return Status::Ok();
}

int64_t CountCache::UpdateBucket(int64_t content_id, uint32_t bucket, int64_t count) {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(content_id);
  if (it == entries_.end() || bucket >= it->second.buckets.size()) return -1;
  it->second.buckets[bucket] = count;
  return Sum(it->second.buckets);
}

}  // namespace ferry::like
