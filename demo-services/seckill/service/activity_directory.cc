#include "service/activity_directory.h"

#include <mutex>

namespace ferry::seckill {

namespace {
constexpr size_t kMaxRememberedUnknown = 10000;
}  // namespace

Status ActivityDirectory::Get(int64_t activity_id, ActivityRecord* out) {
  const int64_t now = now_ms_();
  {
    std::shared_lock lock(mutex_);
    auto it = entries_.find(activity_id);
    if (it != entries_.end() && Fresh(it->second, now)) {
      if (!it->second.found) {
        return Status(StatusCode::NOT_FOUND, "no activity " + std::to_string(activity_id));
      }
      *out = it->second.activity;
      return Status::Ok();
    }
  }
  Entry entry;
  entry.loaded_ms = now;
  Status s = store_->GetActivity(activity_id, &entry.activity);
  if (!s.ok() && s.code() != StatusCode::NOT_FOUND) return s;
  entry.found = s.ok();
  {
    std::unique_lock lock(mutex_);
    // Unknown ids are remembered only up to a bound, so probing random ids cannot grow it.
    if (entry.found || entries_.size() < kMaxRememberedUnknown) entries_[activity_id] = entry;
  }
  if (s.ok()) *out = entry.activity;
  return s;
}

bool ActivityDirectory::Fresh(const Entry& entry, int64_t now) const {
  if (entry.activity.open) return true;
  const bool started = entry.found && now >= entry.activity.start_time_ms;
  return now - entry.loaded_ms < (started ? started_recheck_ms_ : recheck_ms_);
}

Status ActivityDirectory::Reload(int64_t activity_id, ActivityRecord* out) {
  const int64_t now = now_ms_();
  {
    std::shared_lock lock(mutex_);
    auto it = entries_.find(activity_id);
    if (it != entries_.end() && it->second.found && now - it->second.loaded_ms < recheck_ms_) {
      *out = it->second.activity;
      return Status::Ok();
    }
  }
  if (Status s = store_->GetActivity(activity_id, out); !s.ok()) return s;
  Put(*out);
  return Status::Ok();
}

void ActivityDirectory::Put(const ActivityRecord& activity) {
  std::unique_lock lock(mutex_);
  entries_[activity.activity_id] = Entry{true, activity, now_ms_()};
}

}  // namespace ferry::seckill
