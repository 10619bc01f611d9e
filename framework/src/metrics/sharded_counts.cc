#include "ferry/framework/metrics/sharded_counts.h"

#include <algorithm>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

namespace ferry::metrics::detail {
namespace {

constexpr size_t kCacheLine = 64;
constexpr size_t kPerLine = kCacheLine / sizeof(std::atomic<uint64_t>);

}  // namespace

size_t ShardCount() {
  static const size_t count = [] {
    const size_t threads = std::max(1u, std::thread::hardware_concurrency());
    return std::clamp<size_t>(4 * threads, 16, 64);
  }();
  return count;
}

uint32_t TakeRow() {
  // Rows given back by threads that exited, and the next never taken; never destroyed, as
  // threads may exit after static destructors ran.
  struct Rows {
    std::mutex mutex;
    std::vector<uint32_t> returned;
    uint32_t next = 1;
  };
  static Rows* const rows = new Rows;
  struct Lease {
    uint32_t row;
    ~Lease() {
      // From here on this thread shares row 0: a later thread_local destructor may still count.
      t_row = kSharedRow;
      const std::lock_guard lock(rows->mutex);
      rows->returned.push_back(row);
    }
  };
  uint32_t row = kSharedRow;
  {
    const std::lock_guard lock(rows->mutex);
    if (!rows->returned.empty()) {
      row = rows->returned.back();
      rows->returned.pop_back();
    } else if (rows->next < ShardCount()) {
      row = rows->next++;
    }
  }
  t_row = row;
  if (row != kSharedRow) {
    thread_local const Lease lease{row};
  }
  return row;
}

ShardedCounts::ShardedCounts(size_t width)
    : width_(width),
      stride_((width + kPerLine - 1) / kPerLine * kPerLine),
      rows_(ShardCount()),
      counts_(static_cast<std::atomic<uint64_t>*>(::operator new (
          ShardCount() * stride_ * sizeof(std::atomic<uint64_t>), std::align_val_t{kCacheLine}))) {
  for (size_t i = 0; i < rows_ * stride_; ++i) new (&counts_[i]) std::atomic<uint64_t>(0);
}

ShardedCounts::~ShardedCounts() { ::operator delete (counts_, std::align_val_t{kCacheLine}); }

uint64_t ShardedCounts::Sum(size_t index, std::memory_order order) const {
  uint64_t sum = 0;
  for (size_t row = 0; row < rows_; ++row) sum += counts_[row * stride_ + index].load(order);
  return sum;
}

}  // namespace ferry::metrics::detail
