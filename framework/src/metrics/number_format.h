#pragma once

#include <cstdint>
#include <string>

namespace ferry::metrics {

// A sample value as the text format reads it: NaN, +Inf and -Inf by those names; otherwise the
// shortest digits that read back as the same double, without an exponent from 1e-4 up to 1e16
// (so bucket bounds read "0.0001" and "2.5", and whole counts print as integers).
void AppendNumber(double value, std::string* out);

}  // namespace ferry::metrics
