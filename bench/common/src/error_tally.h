#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ferry/bench/single_writer_counter.h"

namespace ferry::bench {

// Error counts by status name, kept by one thread without allocating; other threads may read.
// Names must outlive the tally (string literals or static tables). A run rarely sees more than a
// handful of distinct statuses; any beyond kCapacity are counted as "OTHER".
class ErrorTally {
 public:
  static constexpr size_t kCapacity = 24;

  void Add(std::string_view status) {
    const size_t n = size_.load(std::memory_order_relaxed);
    for (size_t i = 0; i < n; ++i) {
      if (entries_[i].status == status) {
        entries_[i].count.Add(1);
        return;
      }
    }
    if (n == kCapacity) {
      other_.Add(1);
      return;
    }
    entries_[n].status = status;
    entries_[n].count.Add(1);
    // Publishes the new entry's name to readers.
    size_.store(n + 1, std::memory_order_release);
  }

  template <class Visit>  // Visit(std::string_view status, uint64_t count)
  void ForEach(Visit visit) const {
    const size_t n = size_.load(std::memory_order_acquire);
    for (size_t i = 0; i < n; ++i) visit(entries_[i].status, entries_[i].count.Load());
    if (const uint64_t other = other_.Load(); other != 0) visit(std::string_view("OTHER"), other);
  }

 private:
  struct Entry {
    std::string_view status;
    SingleWriterCounter count;
  };
  std::array<Entry, kCapacity> entries_;
  std::atomic<size_t> size_{0};
  SingleWriterCounter other_;
};

}  // namespace ferry::bench
