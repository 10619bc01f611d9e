#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <cstddef>
#include <memory>

#include "transport/io_thread_pool.h"

namespace ferry::server {

// Where a server's TLS handshakes run, and how many may be in progress at once
// (server.tls.handshake_threads, server.limits.max_handshakes). Each handshake costs the server
// a signature: on threads of their own, a flood of them slows the connections being accepted,
// not the established ones on the IO threads.
class TlsHandshakes {
 public:
  ~TlsHandshakes() { Stop(); }

  // Before the first connection is accepted.
  void Start(size_t threads, size_t max_in_flight);
  // Stops and joins the threads; handshakes still in progress are dropped with them.
  void Stop();
  // Whether the threads run: false before Start() and after Stop().
  bool running() const { return running_.load(std::memory_order_acquire); }

  // Counts a handshake in, or is false when max_in_flight are in progress. Any thread.
  bool TryBegin();
  // Once for every TryBegin() that was true, when that handshake ends. Any thread.
  void End() { in_flight_.fetch_sub(1, std::memory_order_relaxed); }
  size_t max_in_flight() const { return max_in_flight_; }
  size_t in_flight() const { return in_flight_.load(std::memory_order_relaxed); }

  boost::asio::io_context& Next() { return threads_->Next(); }

 private:
  std::unique_ptr<transport::IoThreadPool> threads_;
  size_t max_in_flight_ = 0;
  std::atomic<size_t> in_flight_{0};
  std::atomic<bool> running_{false};
};

}  // namespace ferry::server
