#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ferry::trace {

// W3C trace context sizes, in lowercase hex digits: a trace id of 128 bits, a span id of 64.
inline constexpr size_t kTraceIdLength = 32;
inline constexpr size_t kSpanIdLength = 16;

// Replace `*out` with a random id of that many hex digits, reusing out's capacity, so that
// filling a recycled string allocates nothing.
void FillRandomTraceId(std::string* out);
void FillRandomSpanId(std::string* out);

// The parts of a W3C `traceparent` header, "00-<trace id>-<parent span id>-<flags>".
struct TraceParent {
  std::string_view trace_id;
  std::string_view parent_span_id;
  bool sampled = false;
};
// False for anything but a valid version-00 header (or a later version's, read as 00 reads it).
bool ParseTraceParent(std::string_view header, TraceParent* out);
std::string FormatTraceParent(std::string_view trace_id, std::string_view span_id, bool sampled);

}  // namespace ferry::trace
