#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace ferry::bench {

// One T per thread that asks (a recorder whose only writer is that thread, so recording takes no
// lock), and a walk over all of them for the totals.
template <class T>
class PerThread {
 public:
  T& Mine() {
    struct Cache {
      uint64_t owner = 0;
      T* value = nullptr;
    };
    thread_local Cache cache;
    if (cache.owner == id_) return *cache.value;
    std::lock_guard lock(mu_);
    all_.push_back(std::make_unique<T>());
    cache = {id_, all_.back().get()};
    return *cache.value;
  }

  template <class Visit>
  void ForEach(Visit visit) {
    std::lock_guard lock(mu_);
    for (const auto& value : all_) visit(*value);
  }

 private:
  static inline std::atomic<uint64_t> next_id_{1};
  const uint64_t id_ = next_id_.fetch_add(1);
  std::mutex mu_;
  std::vector<std::unique_ptr<T>> all_;
};

}  // namespace ferry::bench
