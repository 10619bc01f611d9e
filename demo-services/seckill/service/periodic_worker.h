#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>

namespace ferry::seckill {

// Runs `step` on its own thread, then again after `interval` (at once when a step says it had
// more to do, or Wake() was called), until Stop(). Stop() waits for the running step to finish.
class PeriodicWorker {
 public:
  // Returns true when there is more work right away. `stop` is requested when Stop() is called:
  // a step that goes through many items (every open activity) checks it between them, so that
  // stopping a provider does not wait for a whole pass.
  using Step = std::function<bool(const std::stop_token& stop)>;

  PeriodicWorker(std::chrono::milliseconds interval, Step step)
      : interval_(interval), step_(std::move(step)) {}
  ~PeriodicWorker() { Stop(); }

  void Start() {
    thread_ = std::thread([this] { Loop(); });
  }
  // Runs the next step now (or right after the running one) instead of at the interval.
  void Wake() {
    {
      std::lock_guard lock(mutex_);
      woken_ = true;
    }
    wake_.notify_all();
  }
  void Stop() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    stop_.request_stop();
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void Loop() {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
      lock.unlock();
      const bool more = step_(stop_.get_token());
      lock.lock();
      if (!more) wake_.wait_for(lock, interval_, [this] { return stopping_ || woken_; });
      woken_ = false;
    }
  }

  const std::chrono::milliseconds interval_;
  const Step step_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool woken_ = false;
  std::stop_source stop_;
  std::thread thread_;
};

}  // namespace ferry::seckill
