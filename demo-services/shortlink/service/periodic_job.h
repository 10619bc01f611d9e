#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace ferry::shortlink {

// Runs `step` every `interval` on a thread of its own until Stop(); a step returning true
// runs again at once (more work is waiting).
class PeriodicJob {
 public:
  PeriodicJob(std::chrono::milliseconds interval, std::function<bool()> step)
      : interval_(interval), step_(std::move(step)), thread_([this] { Loop(); }) {}
  ~PeriodicJob() { Stop(); }

  void Stop() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void Loop() {
    std::unique_lock lock(mu_);
    while (!stopping_) {
      lock.unlock();
      const bool more = step_();
      lock.lock();
      if (!more) wake_.wait_for(lock, interval_, [this] { return stopping_; });
    }
  }

  const std::chrono::milliseconds interval_;
  const std::function<bool()> step_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;  // last: starts once the rest is made
};

}  // namespace ferry::shortlink
