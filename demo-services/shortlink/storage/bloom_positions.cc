#include "storage/bloom_positions.h"

#include <openssl/sha.h>
#include <xxhash.h>

#include <cstring>

namespace ferry::shortlink {

BloomHasher::BloomHasher(std::string_view secret) {
  // The database's secret stretched to XXH3's key size: SHA-256(secret, i) for i = 0..5.
  for (size_t i = 0; i * SHA256_DIGEST_LENGTH < key_.size(); ++i) {
    std::string input(secret);
    input.push_back(static_cast<char>(i));
    SHA256(reinterpret_cast<const unsigned char*>(input.data()), input.size(),
           key_.data() + i * SHA256_DIGEST_LENGTH);
  }
}

std::vector<uint64_t> BloomHasher::Positions(std::string_view code, const BloomShape& shape) const {
  const XXH128_hash_t h =
      XXH3_128bits_withSecret(code.data(), code.size(), key_.data(), key_.size());
  const uint64_t mask = shape.bits() - 1;  // a power of two
  const uint64_t step = h.high64 | 1;
  std::vector<uint64_t> positions;
  positions.reserve(shape.hashes);
  for (uint32_t i = 0; i < shape.hashes; ++i) positions.push_back((h.low64 + i * step) & mask);
  return positions;
}

}  // namespace ferry::shortlink
