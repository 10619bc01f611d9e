#pragma once

#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

namespace ferry::like {

// The bucket streams this process appended to and its event writers have not read since: a
// hint, so that a writer reads the few streams with news instead of sweeping thousands. Only
// a hint: entries appended by another provider, or by this one before a crash, are found by
// the writers' periodic sweep of every registered stream.
class AppendedStreams {
 public:
  void Add(const std::string& stream) {
    std::lock_guard lock(mutex_);
    streams_.insert(stream);
  }
  void Add(const std::vector<std::string>& streams) {
    std::lock_guard lock(mutex_);
    streams_.insert(streams.begin(), streams.end());
  }
  // Every stream noted so far, forgotten here: each goes to one writer.
  std::vector<std::string> TakeAll() {
    std::lock_guard lock(mutex_);
    std::vector<std::string> out(streams_.begin(), streams_.end());
    streams_.clear();
    return out;
  }

 private:
  std::mutex mutex_;
  std::unordered_set<std::string> streams_;
};

}  // namespace ferry::like
