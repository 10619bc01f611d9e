#pragma once

#include <cstdint>

namespace ferry::loadbalance {

// A bijective finalizer (MurmurHash3's fmix64): every input bit flips each output bit with
// probability ~1/2, so that structured inputs (small integers, near-identical strings) spread
// evenly over the 64-bit ring.
constexpr uint64_t Mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

}  // namespace ferry::loadbalance
