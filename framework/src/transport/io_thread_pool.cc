#include "transport/io_thread_pool.h"

#include <pthread.h>

namespace ferry::transport {

IoThreadPool::IoThreadPool(size_t threads, std::string name) {
  if (threads == 0) threads = 1;
  for (size_t i = 0; i < threads; ++i) {
    // concurrency hint 1: each context is run by exactly one thread, so Asio may skip locking.
    contexts_.push_back(std::make_unique<boost::asio::io_context>(1));
    guards_.push_back(boost::asio::make_work_guard(*contexts_.back()));
  }
  for (size_t i = 0; i < threads; ++i) {
    threads_.emplace_back([this, i, thread_name = name.substr(0, 12) + std::to_string(i)] {
      pthread_setname_np(pthread_self(), thread_name.c_str());
      contexts_[i]->run();
    });
  }
}

IoThreadPool::~IoThreadPool() {
  Stop();
  Join();
}

boost::asio::io_context& IoThreadPool::Next() {
  return *contexts_[next_.fetch_add(1, std::memory_order_relaxed) % contexts_.size()];
}

void IoThreadPool::Stop() {
  for (auto& guard : guards_) guard.reset();
  for (auto& context : contexts_) context->stop();
}

void IoThreadPool::Join() {
  for (auto& t : threads_) {
    if (t.joinable() && t.get_id() != std::this_thread::get_id()) t.join();
  }
}

}  // namespace ferry::transport
