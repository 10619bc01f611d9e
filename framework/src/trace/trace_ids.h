#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ferry::trace {

// W3C trace context sizes, in lowercase hex digits: a trace id of 128 bits, a span id of 64.
inline constexpr size_t kTraceIdLength = 32;
inline constexpr size_t kSpanIdLength = 16;

// Whether `id` is a W3C trace id: 32 lowercase hex digits, not all zero. Anything else a peer
// or the application sends as one is replaced by a fresh id before it is used, logged, shown or
// sent on.
bool IsTraceId(std::string_view id);

// Replaces `*out` with a random trace id, reusing out's capacity, so that filling a recycled
// string allocates nothing.
void FillRandomTraceId(std::string* out);

// Span ids travel as 64-bit numbers (RpcMeta fields 10 and 11) and become hex digits only where
// they are shown or leave as a traceparent: every call makes one, most are never read as text.
// A random span id, never 0 (0 stands for "no span").
uint64_t RandomSpanId();
// `*out` = the id's 16 hex digits; "" for 0.
void FormatSpanId(uint64_t id, std::string* out);
// The id 16 lowercase hex digits spell; 0 for anything else, "" included.
uint64_t ParseSpanId(std::string_view hex);

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
