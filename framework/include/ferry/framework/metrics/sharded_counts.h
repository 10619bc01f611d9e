#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace ferry::metrics::detail {

// How many rows every cell has: fixed for the process at first use, four per hardware thread
// (at least 16, at most 64), so that every thread that updates cells usually has a row of its
// own.
size_t ShardCount();

// A thread takes a row (from 1) of every cell when it first updates any cell and gives it back
// when it exits, for the next thread to take; threads that find every row taken share row 0.
// Constant-initialized and trivial, so reading it is one thread-pointer-relative load (no TLS
// wrapper call) in an executable; a shared object pays a __tls_get_addr call instead.
inline constexpr uint32_t kSharedRow = UINT32_MAX;
inline thread_local uint32_t t_row = 0;  // 0: none taken yet; else the row, or kSharedRow
uint32_t TakeRow();

// The calling thread's row, taking one on its first call.
inline uint32_t ThisThreadRow() {
  const uint32_t row = t_row;
  if (row != 0) [[likely]] {
    return row;
  }
  return TakeRow();
}

// ShardCount() rows of `width` counters each, every row on cache lines of its own, and a reader
// sums the rows. A thread that owns a row adds to it with a plain load and store, no locked
// instruction: no other thread writes there, and a reader sees each 64-bit counter whole. Only
// threads without a row of their own share row 0 with fetch_add. Each counter only grows, which
// is what lets a reader sum rows that change while it reads.
class ShardedCounts {
 public:
  explicit ShardedCounts(size_t width);
  ~ShardedCounts();
  ShardedCounts(const ShardedCounts&) = delete;
  ShardedCounts& operator=(const ShardedCounts&) = delete;

  // `order` is relaxed or release.
  void Add(size_t index, uint64_t n, std::memory_order order = std::memory_order_relaxed) {
    const uint32_t row = ThisThreadRow();
    if (row < rows_) [[likely]] {
      std::atomic<uint64_t>& count = counts_[row * stride_ + index];
      count.store(count.load(std::memory_order_relaxed) + n, order);
    } else {
      counts_[index].fetch_add(n, order);
    }
  }
  // The sum over all rows of counter `index`, each row read with `order`.
  uint64_t Sum(size_t index, std::memory_order order = std::memory_order_relaxed) const;
  size_t width() const { return width_; }

 private:
  const size_t width_;
  const size_t stride_;  // width_ rounded up to whole cache lines
  const size_t rows_;    // ShardCount()
  std::atomic<uint64_t>* const counts_;
};

}  // namespace ferry::metrics::detail
