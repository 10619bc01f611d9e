#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <utility>
#include <vector>

namespace ferry::bench {

// `total` calls with at most `window` in flight: a slot's completion issues the next call. The
// issue function must make sure Next(slot) is called exactly once per call, from any thread,
// possibly before it returns (handled without recursion).
class BoundedLoop {
 public:
  using IssueFn = std::function<void(uint64_t index, uint32_t slot)>;

  BoundedLoop(uint64_t total, uint32_t window, IssueFn issue)
      : total_(total), window_(window), issue_(std::move(issue)) {}

  // Issues every slot's first call.
  void Start() {
    for (uint32_t slot = 0; slot < window_; ++slot) Next(slot);
  }

  void Next(uint32_t slot) {
    thread_local std::vector<std::pair<BoundedLoop*, uint32_t>> pending;
    thread_local bool draining = false;
    pending.emplace_back(this, slot);
    if (draining) return;
    draining = true;
    while (!pending.empty()) {
      const auto [loop, next_slot] = pending.back();
      pending.pop_back();
      loop->IssueOrRetire(next_slot);
    }
    draining = false;
  }

  // No call starts after this; the ones out still complete.
  void Stop() { stopped_.store(true, std::memory_order_relaxed); }
  bool stopping() const { return stopped_.load(std::memory_order_relaxed); }

  // True once every slot has retired; false when `deadline` came first.
  bool WaitUntil(std::chrono::steady_clock::time_point deadline) {
    std::unique_lock lock(mu_);
    return finished_.wait_until(lock, deadline, [this] { return finished(); });
  }
  bool finished() const { return retired_.load(std::memory_order_acquire) == window_; }
  // Calls started, i.e. the indexes [0, issued()) went out.
  uint64_t issued() const { return std::min(next_.load(std::memory_order_acquire), total_); }

 private:
  void IssueOrRetire(uint32_t slot) {
    if (!stopped_.load(std::memory_order_relaxed)) {
      const uint64_t index = next_.fetch_add(1, std::memory_order_acq_rel);
      if (index < total_) {
        issue_(index, slot);
        return;
      }
    }
    if (retired_.fetch_add(1, std::memory_order_acq_rel) + 1 == window_) {
      std::lock_guard lock(mu_);
      finished_.notify_all();
    }
  }

  const uint64_t total_;
  const uint32_t window_;
  const IssueFn issue_;
  std::atomic<uint64_t> next_{0};
  std::atomic<uint32_t> retired_{0};
  std::atomic<bool> stopped_{false};
  std::mutex mu_;
  std::condition_variable finished_;
};
}  // namespace ferry::bench
