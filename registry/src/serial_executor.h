#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace ferry::registry {

// One thread running posted tasks in order. Registries use it to keep slow work (ZooKeeper
// round trips, application listeners) off the threads that report events, and to get
// "never concurrently with itself" for free.
class SerialExecutor {
 public:
  // `on_tick`, when given, also runs on the thread every `tick_period`, between tasks.
  explicit SerialExecutor(std::string thread_name, std::chrono::milliseconds tick_period = {},
                          std::function<void()> on_tick = {});
  ~SerialExecutor();  // Stop()
  SerialExecutor(const SerialExecutor&) = delete;
  SerialExecutor& operator=(const SerialExecutor&) = delete;

  // False, dropping `task`, once Stop() has begun.
  bool Post(std::function<void()> task);

  // Runs the tasks already posted, then joins the thread. Idempotent; not from the thread itself.
  void Stop();

  bool IsCurrentThread() const { return std::this_thread::get_id() == thread_.get_id(); }

 private:
  void Loop(const std::string& thread_name);

  const std::chrono::milliseconds tick_period_;
  const std::function<void()> on_tick_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace ferry::registry
