#pragma once

#include <cstdint>
#include <string_view>

namespace ferry {

// The 64-bit hash of a consistent-hashing key: the channel hashes the configured request field
// with it (SelectRequest::hash_key), and the ring places providers with it. The value depends
// only on the bytes, never on the host's endianness or the process, so every client of a service
// maps a key to the same provider.
uint64_t HashKey(std::string_view key);

// A bijective finalizer (MurmurHash3's fmix64): every input bit flips each output bit with
// probability ~1/2, so that structured inputs (small integers, near-identical strings) spread
// evenly over the 64-bit ring. HashKey ends with it; the ring spreads its points with it.
constexpr uint64_t Mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

}  // namespace ferry
