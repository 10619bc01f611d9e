#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ferry/codec/status.h"

namespace ferry::metrics {

// Converts a histogram's bucket bounds from seconds to the whole nanoseconds Histogram compares
// observations with. INVALID_ARGUMENT, naming `metric`, when there are none, one is negative,
// not finite or past int64 nanoseconds (292 years), or two are not strictly increasing once in
// nanoseconds.
Status BucketBoundsToNanos(const std::string& metric, const std::vector<double>& seconds,
                           std::vector<int64_t>* nanos);

}  // namespace ferry::metrics
