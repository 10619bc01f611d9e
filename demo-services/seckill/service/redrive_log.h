#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

namespace ferry::seckill {

// When this provider last re-queued each reservation (by request key), so that a reservation
// re-driven once waits another grace period before the next, and a bounded pass reaches the
// reservations behind it instead of re-driving the same oldest ones again.
class RedriveLog {
 public:
  // True, and `now_ms` noted, when `key` was not re-driven within the last `grace_ms`.
  bool Due(const std::string& key, int64_t now_ms, int64_t grace_ms) {
    std::lock_guard lock(mutex_);
    if (now_ms - pruned_ms_ >= grace_ms) {
      // Reservations decided since stop coming back; forget what is past its grace period.
      std::erase_if(at_, [&](const auto& entry) { return now_ms - entry.second >= grace_ms; });
      pruned_ms_ = now_ms;
    }
    auto [it, fresh] = at_.try_emplace(key, now_ms);
    if (!fresh && now_ms - it->second < grace_ms) return false;
    it->second = now_ms;
    return true;
  }
  // Undoes Due's note when the re-drive did not happen.
  void Forget(const std::string& key) {
    std::lock_guard lock(mutex_);
    at_.erase(key);
  }

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, int64_t> at_;
  int64_t pruned_ms_ = 0;
};

}  // namespace ferry::seckill
