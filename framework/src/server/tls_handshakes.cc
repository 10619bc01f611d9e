#include "server/tls_handshakes.h"

namespace ferry::server {

void TlsHandshakes::Start(size_t threads, size_t max_in_flight) {
  max_in_flight_ = max_in_flight;
  threads_ = std::make_unique<transport::IoThreadPool>(threads, "ferry-srv-tls");
  running_.store(true, std::memory_order_release);
}

void TlsHandshakes::Stop() {
  if (threads_ == nullptr) return;
  threads_->Stop();
  threads_->Join();
  running_.store(false, std::memory_order_release);
}

bool TlsHandshakes::TryBegin() {
  size_t now = in_flight_.load(std::memory_order_relaxed);
  do {
    if (now >= max_in_flight_) return false;
  } while (!in_flight_.compare_exchange_weak(now, now + 1, std::memory_order_relaxed));
  return true;
}

}  // namespace ferry::server
