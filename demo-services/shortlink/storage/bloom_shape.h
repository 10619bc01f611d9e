#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ferry::shortlink {

// A Bloom filter's size and number of hashes, part of the names of everything it is stored
// under: a filter is only read with the parameters it was filled with.
struct BloomShape {
  uint32_t bits_log2 = 20;
  uint32_t hashes = 7;

  uint64_t bits() const { return uint64_t{1} << bits_log2; }
  std::string Name() const;  // "b24k7"
  static bool Parse(std::string_view name, BloomShape* out);
  bool operator==(const BloomShape&) const = default;
};

// The shape for twice `links` codes at `false_positive_rate`: the bits the next power of two
// (2^20 to 2^32), the hashes the best number for them.
BloomShape ShapeFor(uint64_t links, double false_positive_rate);

// The codes `shape` holds before its false-positive rate passes `false_positive_rate`.
uint64_t CapacityOf(const BloomShape& shape, double false_positive_rate);

}  // namespace ferry::shortlink
