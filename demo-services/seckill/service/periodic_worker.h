#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace ferry::seckill {

// Runs `step` on its own thread, then again after `interval` (at once when a step says it had
// more to do), until Stop(). Stop() waits for the running step to finish.
class PeriodicWorker {
 public:
  // Returns true when there is more work right away.
  using Step = std::function<bool()>;

  PeriodicWorker(std::chrono::milliseconds interval, Step step)
      : interval_(interval), step_(std::move(step)) {}
  ~PeriodicWorker() { Stop(); }

  void Start() {
    thread_ = std::thread([this] { Loop(); });
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
  void Loop() {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
      lock.unlock();
      const bool more = step_();
      lock.lock();
      if (!more) wake_.wait_for(lock, interval_, [this] { return stopping_; });
    }
  }

  const std::chrono::milliseconds interval_;
  const Step step_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace ferry::seckill
