#include "ferry/bench/zipf_picker.h"

#include <algorithm>
#include <cmath>

namespace ferry::bench {

ZipfPicker::ZipfPicker(uint32_t n, double s, double hot_share)
    : cumulative_(std::max<uint32_t>(n, 1)), hot_share_(hot_share) {
  double total = 0;
  for (size_t i = 0; i < cumulative_.size(); ++i) {
    total += 1.0 / std::pow(static_cast<double>(i + 1), s);
    cumulative_[i] = total;
  }
  for (double& c : cumulative_) c /= total;
  cumulative_.back() = 1;
}

uint32_t ZipfPicker::Pick(std::mt19937_64& random) const {
  std::uniform_real_distribution<double> unit(0, 1);
  if (hot_share_ > 0 && unit(random) < hot_share_) return 0;
  const auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), unit(random));
  return static_cast<uint32_t>(std::min<size_t>(it - cumulative_.begin(), cumulative_.size() - 1));
}

double ZipfPicker::Share(uint32_t i) const {
  const double zipf = cumulative_[i] - (i == 0 ? 0 : cumulative_[i - 1]);
  return (i == 0 ? hot_share_ : 0) + (1 - hot_share_) * zipf;
}

}  // namespace ferry::bench
