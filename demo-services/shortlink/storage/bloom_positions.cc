#include "storage/bloom_positions.h"

namespace ferry::shortlink {

namespace {

uint64_t Fnv1a(std::string_view s, uint64_t seed) {
  uint64_t h = 14695981039346656037ull ^ seed;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  // A final mix: FNV's low bits are weak for short keys.
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}

}  // namespace

std::vector<uint64_t> BloomPositions(std::string_view code, uint64_t bits, int hashes) {
  const uint64_t a = Fnv1a(code, 0);
  const uint64_t b = Fnv1a(code, 0x9e3779b97f4a7c15ull) | 1;
  std::vector<uint64_t> positions;
  positions.reserve(static_cast<size_t>(hashes));
  for (int i = 0; i < hashes; ++i) positions.push_back((a + static_cast<uint64_t>(i) * b) % bits);
  return positions;
}

}  // namespace ferry::shortlink
