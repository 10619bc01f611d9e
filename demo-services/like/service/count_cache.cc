#include "service/count_cache.h"

namespace ferry::like {

CountCache::CountCache(std::chrono::milliseconds max_age, size_t max_entries, Loader loader,
                       Clock clock)
    : max_age_(max_age),
      max_per_shard_(std::max<size_t>(1, max_entries / kShards)),
      loader_(std::move(loader)),
      clock_(std::move(clock)) {}

void CountCache::Store(Shard& shard, int64_t content_id, const ContentCounts& counts,
                       std::chrono::steady_clock::time_point at) {
  auto it = shard.entries.find(content_id);
  if (it != shard.entries.end()) {
    shard.used.erase(it->second.used);
    shard.entries.erase(it);
  }
  while (shard.entries.size() >= max_per_shard_ && !shard.used.empty()) {
    shard.entries.erase(shard.used.back());
    shard.used.pop_back();
  }
  shard.used.push_front(content_id);
  shard.entries.emplace(content_id, Entry{counts, at, shard.used.begin()});
}

Status CountCache::Totals(std::span<const int64_t> content_ids, std::vector<int64_t>* out) {
  out->assign(content_ids.size(), 0);
  if (max_age_.count() == 0) {
    std::vector<ContentCounts> counts;
    if (Status s = loader_(content_ids, &counts); !s.ok()) return s;
    for (size_t i = 0; i < counts.size(); ++i) (*out)[i] = counts[i].total();
    return Status::Ok();
  }
  const auto now = clock_();
  std::vector<int64_t> mine;                        // misses this call loads
  std::vector<std::shared_ptr<Flight>> my_flights;  // by mine's index
  std::promise<Status> loaded;
  std::shared_future<Status> loaded_future = loaded.get_future().share();
  std::vector<std::pair<size_t, std::shared_ptr<Flight>>> waits;  // (out index, flight)
  std::vector<size_t> mine_at;                                    // out index of each of mine
  for (size_t i = 0; i < content_ids.size(); ++i) {
    const int64_t id = content_ids[i];
    Shard& shard = ShardOf(id);
    std::lock_guard lock(shard.mu);
    auto it = shard.entries.find(id);
    if (it != shard.entries.end() && now - it->second.loaded < max_age_) {
      (*out)[i] = it->second.counts.total();
      shard.used.splice(shard.used.begin(), shard.used, it->second.used);
      continue;
    }
    auto flight = shard.loading.find(id);
    if (flight != shard.loading.end()) {
      waits.emplace_back(i, flight->second);
      continue;
    }
    auto own = std::make_shared<Flight>();
    own->done = loaded_future;
    shard.loading.emplace(id, own);
    mine.push_back(id);
    mine_at.push_back(i);
    my_flights.push_back(std::move(own));
  }
  Status result = Status::Ok();
  if (!mine.empty()) {
    std::vector<ContentCounts> counts;
    result = loader_(mine, &counts);
    if (result.ok() && counts.size() != mine.size()) {
      result = Status(StatusCode::INTERNAL, "count loader answered for the wrong contents");
    }
    for (size_t k = 0; k < mine.size(); ++k) {
      Shard& shard = ShardOf(mine[k]);
      std::lock_guard lock(shard.mu);
      if (result.ok()) {
        my_flights[k]->counts = counts[k];
        (*out)[mine_at[k]] = counts[k].total();
        Store(shard, mine[k], counts[k], now);
      }
      shard.loading.erase(mine[k]);
    }
    loaded.set_value(result);
  }
  for (const auto& [i, flight] : waits) {
    const Status s = flight->done.get();
    if (!s.ok()) {
      if (result.ok()) result = s;
      continue;
    }
    (*out)[i] = flight->counts.total();
  }
  return result;
}

Status CountCache::Total(int64_t content_id, int64_t* total) {
  std::vector<int64_t> totals;
  const int64_t ids[] = {content_id};
  Status s = Totals(ids, &totals);
  *total = s.ok() ? totals[0] : 0;
  return s;
}

int64_t CountCache::UpdateBucket(int64_t content_id, uint32_t layout, uint32_t bucket,
                                 int64_t count) {
  Shard& shard = ShardOf(content_id);
  std::lock_guard lock(shard.mu);
  auto it = shard.entries.find(content_id);
  if (it == shard.entries.end() || clock_() - it->second.loaded >= max_age_) return -1;
  ContentCounts& counts = it->second.counts;
  if (counts.layout != layout || bucket >= counts.buckets.size()) return -1;
  counts.buckets[bucket] = count;
  shard.used.splice(shard.used.begin(), shard.used, it->second.used);
  return counts.total();
}

size_t CountCache::size() {
  size_t n = 0;
  for (Shard& shard : shards_) {
    std::lock_guard lock(shard.mu);
    n += shard.entries.size();
  }
  return n;
}

}  // namespace ferry::like
