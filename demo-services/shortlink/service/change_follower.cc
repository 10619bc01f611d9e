#include "service/change_follower.h"

namespace ferry::shortlink {

Status ChangeFollower::Step() {
  const int64_t now = now_ms_();
  if (since_ms_ == 0) since_ms_ = now - lag_ms_;
  std::vector<LoggedChange> changes;
  if (Status s = store_->ChangesSince(since_ms_, &changes); !s.ok()) return s;
  for (const LoggedChange& change : changes) {
    if (!seen_.emplace(change.id, now).second) continue;
    resolver_->Learn(change.code, change.version);
  }
  since_ms_ = now - lag_ms_;
  // Only what a read can still return needs remembering (with room for providers' clocks to
  // differ by up to lag_ms).
  std::erase_if(seen_, [&](const auto& entry) { return entry.second < now - 3 * lag_ms_; });
  return Status::Ok();
}

}  // namespace ferry::shortlink
