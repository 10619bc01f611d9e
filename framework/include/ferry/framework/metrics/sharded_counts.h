#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace ferry::metrics::detail {

// How many shards every cell has: fixed for the process at first use, a power of two of about
// twice the hardware threads (at least 4, at most 64), so that the threads that run at once
// seldom share one.
size_t ShardCount();

// Threads are numbered in the order they first update any cell, and consecutive numbers take
// consecutive shards, the same for every cell. Constant-initialized and trivial, so reading it
// is one thread-pointer-relative load (no TLS wrapper call) in an executable; a shared object
// pays a __tls_get_addr call instead.
inline thread_local uint32_t t_thread_number = 0;  // 0: not numbered yet; else number + 1
uint32_t NumberThisThread();

// The calling thread's number + 1, numbering it on its first call.
inline uint32_t ThisThreadNumber() {
  const uint32_t n = t_thread_number;
  if (n != 0) [[likely]] {
    return n;
  }
  return NumberThisThread();
}

// ShardCount() rows of `width` counters each, every row on cache lines of its own: what a
// thread adds goes to its own row with a relaxed fetch_add, so threads running at once do not
// bounce one line between cores, and a reader sums the rows. Each counter only grows, which is
// what lets a reader sum rows that change while it reads.
class ShardedCounts {
 public:
  explicit ShardedCounts(size_t width);
  ~ShardedCounts();
  ShardedCounts(const ShardedCounts&) = delete;
  ShardedCounts& operator=(const ShardedCounts&) = delete;

  void Add(size_t index, uint64_t n, std::memory_order order = std::memory_order_relaxed) {
    counts_[(ThisThreadNumber() & mask_) * stride_ + index].fetch_add(n, order);
  }
  // The sum over all rows of counter `index`, each row read with `order`.
  uint64_t Sum(size_t index, std::memory_order order = std::memory_order_relaxed) const;
  size_t width() const { return width_; }

 private:
  const size_t width_;
  const size_t stride_;  // width_ rounded up to whole cache lines
  const size_t mask_;    // ShardCount() - 1
  std::atomic<uint64_t>* const counts_;
};

}  // namespace ferry::metrics::detail
