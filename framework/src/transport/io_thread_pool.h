#pragma once

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <cstddef>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace ferry::transport {

// N io_contexts, one thread each. A connection lives on one context for its whole life, so its
// handlers never run concurrently and need no strand.
class IoThreadPool {
 public:
  IoThreadPool(size_t threads, std::string name);
  ~IoThreadPool();  // Stop() + Join()
  IoThreadPool(const IoThreadPool&) = delete;
  IoThreadPool& operator=(const IoThreadPool&) = delete;

  // Round-robin over the contexts.
  boost::asio::io_context& Next();
  boost::asio::io_context& At(size_t i) { return *contexts_[i]; }
  size_t size() const { return contexts_.size(); }

  void Stop();
  void Join();

 private:
  using WorkGuard = boost::asio::executor_work_guard<boost::asio::io_context::executor_type>;
  std::vector<std::unique_ptr<boost::asio::io_context>> contexts_;
  std::vector<WorkGuard> guards_;
  std::vector<std::thread> threads_;
  std::atomic<size_t> next_{0};
};

}  // namespace ferry::transport
