#pragma once

#include <cstdint>
#include <vector>

#include "error_tally.h"
#include "ferry/bench/latency_histogram.h"
#include "ferry/bench/single_writer_counter.h"

namespace ferry::bench {

// Everything one thread records for one LoadDriver: it is the only writer, so recording takes
// no lock and shares no cache line with other threads.
struct ThreadRecorder {
  explicit ThreadRecorder(uint64_t seed) : random_state(seed) { pending.reserve(64); }

  // splitmix64: cheap, and good enough to pick which calls are slow.
  uint64_t NextRandom() {
    uint64_t z = (random_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  LatencyHistogram latency;
  LatencyHistogram fast_latency;
  SingleWriterCounter completed;  // every completion, in any phase and with any status
  SingleWriterCounter errors;     // while measuring
  ErrorTally errors_by_status;    // while measuring

  // Slots waiting to be issued by the outermost issuing frame on this thread, so that a call
  // completing inside Issue() loops instead of recursing.
  std::vector<uint32_t> pending;
  bool issuing = false;
  uint64_t random_state;
};

}  // namespace ferry::bench
