#pragma once

#include <cstdint>

namespace ferry::loadbalance {

// Per-thread SplitMix64: balancers draw a random number on every pick, and a shared generator
// would put one contended cache line on every call path. Not for anything security-related.
class FastRandom {
 public:
  // The calling thread's generator, seeded once from std::random_device.
  static FastRandom& ForThisThread();

  uint64_t Next() {
    state_ += 0x9e3779b97f4a7c15ULL;
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  // Uniform in [0, bound) for bound > 0, by Lemire's multiply-shift: no division, and a bias of
  // at most bound / 2^64.
  uint64_t Below(uint64_t bound) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(Next()) * bound) >> 64);
  }

 private:
  explicit FastRandom(uint64_t seed) : state_(seed) {}

  uint64_t state_;
};

}  // namespace ferry::loadbalance
