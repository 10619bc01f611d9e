#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <set>
#include <unordered_map>

namespace ferry::like {

// Notices contents written more than `writes_per_s` times within one second (on this
// provider) and queues them, once each until taken, for their buckets to be raised.
class HotDetector {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;

  explicit HotDetector(int64_t writes_per_s, Clock clock = std::chrono::steady_clock::now)
      : writes_per_s_(writes_per_s), clock_(std::move(clock)) {}

  void Note(int64_t content_id);
  // The next content found hot; false when there is none.
  bool Take(int64_t* content_id);
  // Changes noted so far (only real changes are: repeats and replays never make content hot).
  uint64_t noted() const { return noted_.load(); }

 private:
  const int64_t writes_per_s_;
  const Clock clock_;
  std::atomic<uint64_t> noted_{0};
  std::mutex mutex_;
  std::chrono::steady_clock::time_point window_;  // guarded by mutex_: the current second
  std::unordered_map<int64_t, int64_t> writes_;   // guarded by mutex_: this second's writes
  std::deque<int64_t> hot_;                       // guarded by mutex_
  std::set<int64_t> queued_;                      // guarded by mutex_
};

}  // namespace ferry::like
