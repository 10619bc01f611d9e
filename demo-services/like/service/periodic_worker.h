#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace ferry::like {

// Runs `step` on its own thread, again after `interval` (at once when it says it had more to
// do), until Stop(), which waits for the running step.
class PeriodicWorker {
 public:
  using Step = std::function<bool()>;  // true: more work right away

  PeriodicWorker(std::chrono::milliseconds interval, Step step)
      : interval_(interval), step_(std::move(step)) {}
  ~PeriodicWorker() { Stop(); }

  void Start() {
    thread_ = std::thread([this] {
      std::unique_lock lock(mutex_);
      while (!stopping_) {
        lock.unlock();
        const bool more = step_();
        lock.lock();
        if (!more) wake_.wait_for(lock, interval_, [this] { return stopping_; });
      }
    });
  }
  void Stop() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  const std::chrono::milliseconds interval_;
  const Step step_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace ferry::like
