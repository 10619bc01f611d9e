#include "service/hot_detector.h"

namespace ferry::like {

void HotDetector::Note(int64_t content_id) {
  noted_.fetch_add(1);
  const auto now = clock_();
  std::lock_guard lock(mutex_);
  if (now - window_ >= std::chrono::seconds(1)) {
    window_ = now;
    writes_.clear();
  }
  if (++writes_[content_id] != writes_per_s_ + 1) return;
  if (queued_.insert(content_id).second) hot_.push_back(content_id);
}

bool HotDetector::Take(int64_t* content_id) {
  std::lock_guard lock(mutex_);
  if (hot_.empty()) return false;
  *content_id = hot_.front();
  hot_.pop_front();
  queued_.erase(*content_id);
  return true;
}

}  // namespace ferry::like
