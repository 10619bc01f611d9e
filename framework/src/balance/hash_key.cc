#include "ferry/framework/hash_key.h"

#include <bit>
#include <cstddef>

namespace ferry {
namespace {

constexpr uint64_t kMultiplier = 0x9e3779b97f4a7c15ULL;  // 2^64 / golden ratio, odd

// Little-endian regardless of the host, so that hashes agree across architectures.
uint64_t LoadLittleEndian(const unsigned char* p, size_t n) {
  uint64_t word = 0;
  for (size_t i = 0; i < n; ++i) word |= static_cast<uint64_t>(p[i]) << (8 * i);
  return word;
}

}  // namespace

uint64_t HashKey(std::string_view key) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(key.data());
  const size_t size = key.size();
  // Seeding with the length keeps "a" and "a\0" apart, since the tail word is zero-padded.
  uint64_t hash = Mix64(size * kMultiplier + 1);
  size_t offset = 0;
  for (; offset + 8 <= size; offset += 8) {
    hash =
        std::rotl(hash ^ Mix64(LoadLittleEndian(bytes + offset, 8)), 27) * kMultiplier + 0x52dce729;
  }
  if (offset < size) hash ^= Mix64(LoadLittleEndian(bytes + offset, size - offset));
  return Mix64(hash);
}

}  // namespace ferry
