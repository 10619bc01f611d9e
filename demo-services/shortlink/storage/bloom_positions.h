#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "storage/bloom_shape.h"

namespace ferry::shortlink {

// A code's bit positions in a filter of a given shape: double hashing of XXH3-128 keyed with a
// secret every provider of a database shares (made once, kept in the database). Without the
// secret nobody can tell which unknown codes pass the filter, so codes that would each cost a
// database query cannot be searched for offline.
class BloomHasher {
 public:
  explicit BloomHasher(std::string_view secret);
  std::vector<uint64_t> Positions(std::string_view code, const BloomShape& shape) const;

 private:
  std::array<unsigned char, 192> key_{};  // XXH3 wants at least 136 bytes of secret
};

}  // namespace ferry::shortlink
