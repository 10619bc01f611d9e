#pragma once

#include <atomic>
#include <cstdint>

#include "ferry/framework/metrics/sharded_counts.h"

namespace ferry::metrics {

// A count that goes up and down on the hot path from many threads (calls in flight, open
// connections), exported as a gauge. Ups and downs are two sharded counters that only grow;
// a reader sums the downs first, and a down is published with release, so every down a reader
// sees comes with the up that preceded it: a value made of matched Increment/Decrement pairs
// never reads below zero, even while threads update it.
class UpDownCounter {
 public:
  UpDownCounter() : counts_(2) {}

  void Increment() { counts_.Add(kUps, 1); }
  void Decrement() { counts_.Add(kDowns, 1, std::memory_order_release); }
  void Add(int64_t n) {
    if (n >= 0) {
      counts_.Add(kUps, static_cast<uint64_t>(n));
    } else {
      counts_.Add(kDowns, static_cast<uint64_t>(-n), std::memory_order_release);
    }
  }
  int64_t Value() const {
    const uint64_t downs = counts_.Sum(kDowns, std::memory_order_acquire);
    return static_cast<int64_t>(counts_.Sum(kUps) - downs);
  }

 private:
  static constexpr size_t kUps = 0;
  static constexpr size_t kDowns = 1;
  detail::ShardedCounts counts_;
};

}  // namespace ferry::metrics
