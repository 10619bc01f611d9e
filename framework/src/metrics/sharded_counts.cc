#include "ferry/framework/metrics/sharded_counts.h"

#include <algorithm>
#include <bit>
#include <new>
#include <thread>

namespace ferry::metrics::detail {
namespace {

constexpr size_t kCacheLine = 64;
constexpr size_t kPerLine = kCacheLine / sizeof(std::atomic<uint64_t>);

}  // namespace

size_t ShardCount() {
  static const size_t count = [] {
    const size_t threads = std::max(1u, std::thread::hardware_concurrency());
    return std::clamp<size_t>(std::bit_ceil(2 * threads), 4, 64);
  }();
  return count;
}

uint32_t NumberThisThread() {
  static std::atomic<uint32_t> next{0};
  t_thread_number = next.fetch_add(1, std::memory_order_relaxed) + 1;
  return t_thread_number;
}

ShardedCounts::ShardedCounts(size_t width)
    : width_(width),
      stride_((width + kPerLine - 1) / kPerLine * kPerLine),
      mask_(ShardCount() - 1),
      counts_(static_cast<std::atomic<uint64_t>*>(::operator new (
          ShardCount() * stride_ * sizeof(std::atomic<uint64_t>), std::align_val_t{kCacheLine}))) {
  for (size_t i = 0; i < (mask_ + 1) * stride_; ++i) new (&counts_[i]) std::atomic<uint64_t>(0);
}

ShardedCounts::~ShardedCounts() { ::operator delete (counts_, std::align_val_t{kCacheLine}); }

uint64_t ShardedCounts::Sum(size_t index, std::memory_order order) const {
  uint64_t sum = 0;
  for (size_t row = 0; row <= mask_; ++row) sum += counts_[row * stride_ + index].load(order);
  return sum;
}

}  // namespace ferry::metrics::detail
