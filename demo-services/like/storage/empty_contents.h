#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <mutex>
#include <unordered_map>
#include <utility>

namespace ferry::like {

// Contents the record had no like of when last asked, remembered in process for `ttl` and at
// most `capacity` of them (the oldest go first), so that reads of contents nobody liked cost
// neither a database query each nor anything in Redis. Only consulted when Redis holds none of
// the content's buckets: a like anywhere loads its bucket first, which every read checks
// before asking here.
class EmptyContents {
 public:
  using Clock = std::chrono::steady_clock;

  EmptyContents(std::chrono::milliseconds ttl, size_t capacity) : ttl_(ttl), capacity_(capacity) {}

  bool Contains(int64_t content_id) {
    std::lock_guard lock(mu_);
    auto it = seen_.find(content_id);
    if (it == seen_.end()) return false;
    if (Clock::now() - it->second < ttl_) return true;
    seen_.erase(it);
    return false;
  }
  void Add(int64_t content_id) {
    if (capacity_ == 0 || ttl_.count() == 0) return;
    std::lock_guard lock(mu_);
    const auto now = Clock::now();
    if (!seen_.insert_or_assign(content_id, now).second) return;
    order_.emplace_back(content_id, now);
    while (seen_.size() > capacity_ && !order_.empty()) {
      auto [oldest, at] = order_.front();
      order_.pop_front();
      auto it = seen_.find(oldest);
      if (it != seen_.end() && it->second == at) seen_.erase(it);
    }
    // Entries re-added leave stale places behind; bounded by dropping them once they pile up.
    if (order_.size() > 2 * capacity_) {
      std::deque<std::pair<int64_t, Clock::time_point>> kept;
      for (const auto& entry : order_) {
        auto it = seen_.find(entry.first);
        if (it != seen_.end() && it->second == entry.second) kept.push_back(entry);
      }
      order_.swap(kept);
    }
  }
  void Remove(int64_t content_id) {
    std::lock_guard lock(mu_);
    seen_.erase(content_id);
  }

 private:
  const std::chrono::milliseconds ttl_;
  const size_t capacity_;
  std::mutex mu_;
  std::unordered_map<int64_t, Clock::time_point> seen_;      // guarded by mu_
  std::deque<std::pair<int64_t, Clock::time_point>> order_;  // guarded by mu_: oldest first
};

}  // namespace ferry::like
