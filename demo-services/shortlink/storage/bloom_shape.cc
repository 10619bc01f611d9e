#include "storage/bloom_shape.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace ferry::shortlink {

std::string BloomShape::Name() const {
  return "b" + std::to_string(bits_log2) + "k" + std::to_string(hashes);
}

bool BloomShape::Parse(std::string_view name, BloomShape* out) {
  const size_t k = name.find('k');
  if (name.size() < 4 || name[0] != 'b' || k == std::string_view::npos) return false;
  BloomShape shape;
  const auto bits = std::from_chars(name.data() + 1, name.data() + k, shape.bits_log2);
  const auto hashes = std::from_chars(name.data() + k + 1, name.data() + name.size(), shape.hashes);
  if (bits.ec != std::errc() || bits.ptr != name.data() + k || hashes.ec != std::errc() ||
      hashes.ptr != name.data() + name.size() || shape.bits_log2 < 10 || shape.bits_log2 > 32 ||
      shape.hashes < 1 || shape.hashes > 32) {
    return false;
  }
  *out = shape;
  return true;
}

BloomShape ShapeFor(uint64_t links, double false_positive_rate) {
  const double n = 2.0 * static_cast<double>(std::max<uint64_t>(links, 1));
  const double ln2 = std::log(2.0);
  const double wanted = -n * std::log(false_positive_rate) / (ln2 * ln2);
  BloomShape shape;
  shape.bits_log2 = static_cast<uint32_t>(std::clamp(std::ceil(std::log2(wanted)), 20.0, 32.0));
  const double k = std::round(static_cast<double>(shape.bits()) / n * ln2);
  shape.hashes = static_cast<uint32_t>(std::clamp(k, 1.0, 16.0));
  return shape;
}

uint64_t CapacityOf(const BloomShape& shape, double false_positive_rate) {
  // (1 - e^(-kn/m))^k = p  =>  n = -(m / k) ln(1 - p^(1/k))
  const double k = shape.hashes;
  const double m = static_cast<double>(shape.bits());
  return static_cast<uint64_t>(-(m / k) * std::log(1.0 - std::pow(false_positive_rate, 1.0 / k)));
}

}  // namespace ferry::shortlink
