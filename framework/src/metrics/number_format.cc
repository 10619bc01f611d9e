#include "metrics/number_format.h"

#include <charconv>
#include <cmath>
#include <cstring>

namespace ferry::metrics {

void AppendNumber(double value, std::string* out) {
  if (std::isnan(value)) {
    out->append("NaN");
    return;
  }
  if (std::isinf(value)) {
    out->append(value > 0 ? "+Inf" : "-Inf");
    return;
  }
  char buffer[64];
  char* const end = buffer + sizeof(buffer);
  // The shortest scientific form gives the exponent that picks the notation.
  std::to_chars_result result = std::to_chars(buffer, end, value, std::chars_format::scientific);
  const char* e = static_cast<const char*>(std::memchr(buffer, 'e', result.ptr - buffer));
  int exponent = 0;
  std::from_chars(e + (e[1] == '+' ? 2 : 1), result.ptr, exponent);
  if (exponent >= -4 && exponent < 16) {
    result = std::to_chars(buffer, end, value, std::chars_format::fixed);
  }
  out->append(buffer, result.ptr);
}

}  // namespace ferry::metrics
