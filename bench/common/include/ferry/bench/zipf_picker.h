#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace ferry::bench {

// Picks an index in [0, n): with probability `hot_share` the hottest one (0), otherwise by Zipf's
// law with exponent `s` (index i with weight 1 / (i + 1)^s; s = 0 is uniform). Immutable, so
// threads share one.
class ZipfPicker {
 public:
  ZipfPicker(uint32_t n, double s, double hot_share);

  uint32_t Pick(std::mt19937_64& random) const;
  // The probability of index i, for the summary (what share the hottest gets).
  double Share(uint32_t i) const;

 private:
  std::vector<double> cumulative_;  // normalised, the last one 1
  double hot_share_;
};

}  // namespace ferry::bench
