#include "service/activity_status.h"

#include <algorithm>

namespace ferry::seckill {

namespace {

Status NotFound(int64_t activity_id) {
  return Status(StatusCode::NOT_FOUND, "no activity " + std::to_string(activity_id));
}

}  // namespace

ActivityStatusBoard::ActivityStatusBoard(ActivityStatusOptions options, Load load, Ceiling ceiling,
                                         std::function<int64_t()> now_ms)
    : options_(options),
      load_(std::move(load)),
      ceiling_(std::move(ceiling)),
      now_ms_(std::move(now_ms)) {}

Status ActivityStatusBoard::Get(int64_t activity_id, std::shared_ptr<const ActivityStatus>* out) {
  if (activity_id <= 0) return NotFound(activity_id);
  const int64_t now = now_ms_();
  std::unique_lock lock(mu_);
  if (!entries_.contains(activity_id)) {
    if (!BelowCeiling(lock, activity_id, now)) return NotFound(activity_id);
    if (!entries_.contains(activity_id)) {  // the ceiling's read released the lock
      if (!TakeLoadToken(now)) {
        return Status(StatusCode::UNAVAILABLE,
                      "too many activities asked for at once; retry shortly");
      }
      Insert(activity_id, now);
    }
  }
  Entry* entry = &entries_.at(activity_id);
  entry->polled_ms = now;
  lru_.splice(lru_.begin(), lru_, entry->lru);
  if (entry->status == nullptr) {
    if (entry->reading) {
      read_done_.wait(lock, [&] {
        auto it = entries_.find(activity_id);
        return it == entries_.end() || !it->second.reading;
      });
    } else {
      Read(lock, activity_id);
    }
    auto it = entries_.find(activity_id);
    if (it == entries_.end()) return Status(StatusCode::UNAVAILABLE, "retry shortly");
    entry = &it->second;
    if (entry->status == nullptr) return entry->last_error;
  } else if (now - entry->refreshed_ms >= options_.refresh_ms && !entry->reading) {
    Read(lock, activity_id);
    entry = &entries_.at(activity_id);  // a reading entry is never dropped
  }
  if (!entry->status->found) return NotFound(activity_id);
  *out = entry->status;
  return Status::Ok();
}

bool ActivityStatusBoard::BelowCeiling(std::unique_lock<std::mutex>& lock, int64_t activity_id,
                                       int64_t now) {
  if (activity_id <= highest_) return true;
  const bool fresh = highest_read_ms_ != 0 && now - highest_read_ms_ < options_.refresh_ms;
  if (fresh || reading_ceiling_) return false;  // one read of the ceiling at a time
  reading_ceiling_ = true;
  lock.unlock();
  int64_t highest = 0;
  const Status s = ceiling_(&highest);
  lock.lock();
  reading_ceiling_ = false;
  highest_read_ms_ = std::max<int64_t>(now, 1);
  if (!s.ok()) return true;  // the activity's own read reports the error (within the budget)
  highest_ = std::max(highest_, highest);
  return activity_id <= highest_;
}

bool ActivityStatusBoard::TakeLoadToken(int64_t now) {
  const double capacity = static_cast<double>(std::max<int64_t>(options_.loads_per_s, 1));
  if (tokens_ms_ == 0) {
    load_tokens_ = capacity;
  } else {
    load_tokens_ =
        std::min(capacity, load_tokens_ + static_cast<double>(now - tokens_ms_) * capacity / 1000);
  }
  tokens_ms_ = std::max<int64_t>(now, 1);
  if (load_tokens_ < 1) return false;
  load_tokens_ -= 1;
  return true;
}

ActivityStatusBoard::Entry& ActivityStatusBoard::Insert(int64_t activity_id, int64_t now) {
  while (!lru_.empty()) {
    Entry& oldest = entries_.at(lru_.back());
    const bool full = entries_.size() >= std::max<size_t>(options_.max_entries, 1);
    if (oldest.reading || (!full && now - oldest.polled_ms < options_.idle_ms)) break;
    entries_.erase(lru_.back());
    lru_.pop_back();
  }
  lru_.push_front(activity_id);
  Entry& entry = entries_[activity_id];
  entry.lru = lru_.begin();
  entry.polled_ms = now;
  return entry;
}

void ActivityStatusBoard::Read(std::unique_lock<std::mutex>& lock, int64_t activity_id) {
  Entry& entry = entries_.at(activity_id);
  entry.reading = true;
  entry.refreshed_ms = std::max<int64_t>(now_ms_(), 1);
  const uint64_t signals = entry.signals;
  lock.unlock();
  auto fresh = std::make_shared<ActivityStatus>();
  const Status s = load_(activity_id, fresh.get());
  fresh->as_of_ms = now_ms_();
  lock.lock();
  Entry& after = entries_.at(activity_id);
  after.reading = false;
  if (s.ok()) {
    // A broadcast that arrived during the read is newer than what the read saw.
    if (after.signals != signals && after.status != nullptr) {
      fresh->sold_out = after.status->sold_out;
    }
    after.status = std::move(fresh);
  } else if (after.status == nullptr) {
    after.last_error = s;
  }
  read_done_.notify_all();
}

bool ActivityStatusBoard::MarkSoldOut(int64_t activity_id, int64_t epoch) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(activity_id);
  if (it == entries_.end()) return true;
  Entry& entry = it->second;
  if (entry.status == nullptr || !entry.status->found) return true;
  if (epoch != 0 && entry.status->epoch != 0 && entry.status->epoch != epoch) return false;
  ++entry.signals;
  auto marked = std::make_shared<ActivityStatus>(*entry.status);
  marked->sold_out = true;
  marked->remaining = 0;
  marked->as_of_ms = now_ms_();
  entry.status = std::move(marked);
  return true;
}

void ActivityStatusBoard::MarkReopened(int64_t activity_id) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(activity_id);
  if (it == entries_.end()) return;
  Entry& entry = it->second;
  ++entry.signals;
  // Only a status that had none left is read again early (how many came back is for the next
  // poll to read): a stream of releases must not turn every poll into a read.
  if (entry.status == nullptr || (!entry.status->sold_out && entry.status->remaining != 0)) {
    return;
  }
  entry.refreshed_ms = 0;
  if (!entry.status->sold_out) return;
  auto reopened = std::make_shared<ActivityStatus>(*entry.status);
  reopened->sold_out = false;
  entry.status = std::move(reopened);
}

void ActivityStatusBoard::Invalidate(int64_t activity_id) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(activity_id);
  if (it != entries_.end()) it->second.refreshed_ms = 0;
}

void ActivityStatusBoard::Known(int64_t activity_id) {
  std::lock_guard lock(mu_);
  highest_ = std::max(highest_, activity_id);
}

void ActivityStatusBoard::ExpireAll() {
  std::lock_guard lock(mu_);
  for (auto& [id, entry] : entries_) entry.refreshed_ms = 0;
}

size_t ActivityStatusBoard::size() const {
  std::lock_guard lock(mu_);
  return entries_.size();
}

}  // namespace ferry::seckill
