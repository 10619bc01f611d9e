#pragma once

#include <cstdint>

#include "ferry/framework/metrics/sharded_counts.h"

namespace ferry::metrics {

// A count that only grows (calls, bytes, rejections). Increment is one relaxed fetch_add on a
// cache line of the calling thread's shard: no lock, and threads do not contend unless more of
// them run at once than there are shards. Obtained from a CounterFamily and kept by the caller.
class Counter {
 public:
  Counter() : counts_(1) {}

  void Increment(uint64_t n = 1) { counts_.Add(0, n); }
  // The sum of every increment that happened before the call, and perhaps some concurrent ones.
  uint64_t Value() const { return counts_.Sum(0); }

 private:
  detail::ShardedCounts counts_;
};

}  // namespace ferry::metrics
