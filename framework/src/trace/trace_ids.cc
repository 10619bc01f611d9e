#include "trace/trace_ids.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <random>

namespace ferry::trace {
namespace {

// Two hex digits per byte from one table: every call of every channel makes ids.
constexpr auto kHexPairs = [] {
  std::array<char, 512> pairs{};
  constexpr char kHex[] = "0123456789abcdef";
  for (int i = 0; i < 256; ++i) {
    pairs[2 * i] = kHex[i >> 4];
    pairs[2 * i + 1] = kHex[i & 0xF];
  }
  return pairs;
}();

// `digits` hex digits (a multiple of 16) of fresh randomness.
void FillRandomHex(size_t digits, std::string* out) {
  // One generator per thread: no lock, and ids from different threads do not correlate.
  thread_local std::mt19937_64 random(std::random_device{}());
  out->resize(digits);
  char* at = out->data();
  for (size_t word = 0; word < digits / 16; ++word) {
    uint64_t bits = random();
    for (int byte = 0; byte < 8; ++byte, bits >>= 8, at += 2) {
      std::memcpy(at, &kHexPairs[2 * (bits & 0xFF)], 2);
    }
  }
}

bool IsLowerHex(std::string_view text) {
  for (const char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return !text.empty();
}

bool AllZero(std::string_view text) { return text.find_first_not_of('0') == std::string_view::npos; }

}  // namespace

void FillRandomTraceId(std::string* out) { FillRandomHex(kTraceIdLength, out); }
void FillRandomSpanId(std::string* out) { FillRandomHex(kSpanIdLength, out); }

bool ParseTraceParent(std::string_view header, TraceParent* out) {
  // 2 + 1 + 32 + 1 + 16 + 1 + 2 characters; a later version may append "-..." fields.
  constexpr size_t kLength = 55;
  if (header.size() < kLength || (header.size() > kLength && header[kLength] != '-')) return false;
  const std::string_view version = header.substr(0, 2);
  const std::string_view trace_id = header.substr(3, kTraceIdLength);
  const std::string_view parent = header.substr(36, kSpanIdLength);
  const std::string_view flags = header.substr(53, 2);
  if (header[2] != '-' || header[35] != '-' || header[52] != '-' || !IsLowerHex(version) ||
      version == "ff" || (version == "00" && header.size() != kLength) || !IsLowerHex(trace_id) ||
      AllZero(trace_id) || !IsLowerHex(parent) || AllZero(parent) || !IsLowerHex(flags)) {
    return false;
  }
  out->trace_id = trace_id;
  out->parent_span_id = parent;
  out->sampled = (std::stoi(std::string(flags), nullptr, 16) & 1) != 0;
  return true;
}

std::string FormatTraceParent(std::string_view trace_id, std::string_view span_id, bool sampled) {
  std::string header = "00-";
  header.append(trace_id).append("-").append(span_id).append(sampled ? "-01" : "-00");
  return header;
}

}  // namespace ferry::trace
