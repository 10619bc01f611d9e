#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace ferry::server {

// The bytes all connections of a server hold in read buffers and unwritten answers, against
// server.limits.max_buffered_bytes. Connections charge what they allocate and release what they
// free; one relaxed atomic add each time, which is per read and per answer, not per byte.
class BufferBudget {
 public:
  void set_limit(size_t limit) { limit_ = static_cast<int64_t>(limit); }

  // `delta` may be negative (memory given back).
  void Charge(int64_t delta) { used_.fetch_add(delta, std::memory_order_relaxed); }
  bool Exceeded() const { return used_.load(std::memory_order_relaxed) > limit_; }
  int64_t used() const { return used_.load(std::memory_order_relaxed); }
  int64_t limit() const { return limit_; }

 private:
  int64_t limit_ = INT64_MAX;
  std::atomic<int64_t> used_{0};
};

}  // namespace ferry::server
