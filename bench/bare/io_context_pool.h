#pragma once

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <cstddef>
#include <memory>
#include <thread>
#include <vector>

namespace ferry::bench {

// N io_contexts, one thread each, so every connection's handlers run on one thread and need
// neither locks nor strands.
class IoContextPool {
 public:
  explicit IoContextPool(size_t threads) {
    for (size_t i = 0; i < threads; ++i) {
      // Concurrency hint 1: one thread runs each context, so Asio may skip its own locking.
      contexts_.push_back(std::make_unique<boost::asio::io_context>(1));
      guards_.emplace_back(contexts_.back()->get_executor());
    }
  }
  ~IoContextPool() { Stop(); }
  IoContextPool(const IoContextPool&) = delete;
  IoContextPool& operator=(const IoContextPool&) = delete;

  boost::asio::io_context& At(size_t i) { return *contexts_[i % contexts_.size()]; }

  void Start() {
    for (auto& context : contexts_) threads_.emplace_back([c = context.get()] { c->run(); });
  }

  // Stops every context and joins the threads; no handler runs after this returns.
  void Stop() {
    guards_.clear();
    for (auto& context : contexts_) context->stop();
    for (auto& thread : threads_) thread.join();
    threads_.clear();
  }

 private:
  using WorkGuard = boost::asio::executor_work_guard<boost::asio::io_context::executor_type>;
  std::vector<std::unique_ptr<boost::asio::io_context>> contexts_;
  std::vector<WorkGuard> guards_;
  std::vector<std::thread> threads_;
};

}  // namespace ferry::bench
