#include "metrics/bucket_bounds.h"

#include <cmath>

namespace ferry::metrics {

Status BucketBoundsToNanos(const std::string& metric, const std::vector<double>& seconds,
                           std::vector<int64_t>* nanos) {
  const auto invalid = [&](const std::string& problem) {
    return Status(StatusCode::INVALID_ARGUMENT, "metric \"" + metric + "\": " + problem);
  };
  if (seconds.empty()) return invalid("a histogram needs at least one bucket bound");
  // Below 2^63 ns, so that llround cannot overflow.
  constexpr double kMaxSeconds = 9.2e9;
  nanos->clear();
  for (double bound : seconds) {
    if (!(bound >= 0 && bound <= kMaxSeconds)) {
      return invalid("bucket bound " + std::to_string(bound) + " is not in [0, 9.2e9] seconds");
    }
    const int64_t ns = std::llround(bound * 1e9);
    if (!nanos->empty() && ns <= nanos->back()) {
      return invalid("bucket bounds must increase by at least 1 ns each");
    }
    nanos->push_back(ns);
  }
  return Status::Ok();
}

}  // namespace ferry::metrics
