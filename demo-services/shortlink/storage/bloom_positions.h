#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace ferry::shortlink {

// The k bit positions of `code` in a filter of `bits` bits, by double hashing of two 64-bit
// FNV-1a variants: the same in every process, so providers sharing a Redis bitmap agree.
std::vector<uint64_t> BloomPositions(std::string_view code, uint64_t bits, int hashes);

}  // namespace ferry::shortlink
