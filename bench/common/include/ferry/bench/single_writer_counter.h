#pragma once

#include <atomic>
#include <cstdint>

namespace ferry::bench {

// A counter that exactly one thread updates while others may read it at any time. A relaxed
// load + store instead of fetch_add keeps the writer free of locked instructions, and the atomic
// keeps concurrent readers (the once-a-second progress line) free of data races.
class SingleWriterCounter {
 public:
  void Add(uint64_t n) {
    value_.store(value_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  void Set(uint64_t v) { value_.store(v, std::memory_order_relaxed); }
  uint64_t Load() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> value_{0};
};

}  // namespace ferry::bench
