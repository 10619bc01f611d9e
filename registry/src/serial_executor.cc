#include "serial_executor.h"

#include <pthread.h>

#include <utility>

namespace ferry::registry {

SerialExecutor::SerialExecutor(std::string thread_name, std::chrono::milliseconds tick_period,
                               std::function<void()> on_tick)
    : tick_period_(tick_period),
      on_tick_(std::move(on_tick)),
      thread_([this, name = std::move(thread_name)] { Loop(name); }) {}

SerialExecutor::~SerialExecutor() { Stop(); }

bool SerialExecutor::Post(std::function<void()> task) {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return false;
    tasks_.push_back(std::move(task));
  }
  wake_.notify_one();
  return true;
}

void SerialExecutor::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void SerialExecutor::Loop(const std::string& thread_name) {
  pthread_setname_np(pthread_self(), thread_name.substr(0, 15).c_str());
  auto next_tick = std::chrono::steady_clock::now() + tick_period_;
  std::unique_lock lock(mu_);
  while (true) {
    if (on_tick_) {
      wake_.wait_until(lock, next_tick, [this] { return stopping_ || !tasks_.empty(); });
    } else {
      wake_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
    }
    if (!tasks_.empty()) {
      auto task = std::move(tasks_.front());
      tasks_.pop_front();
      lock.unlock();
      task();
      lock.lock();
    } else if (stopping_) {
      return;
    }
    if (on_tick_ && !stopping_ && std::chrono::steady_clock::now() >= next_tick) {
      lock.unlock();
      on_tick_();
      lock.lock();
      next_tick = std::chrono::steady_clock::now() + tick_period_;
    }
  }
}

}  // namespace ferry::registry
