#include "trace/trace_ids.h"

#include <bit>
#include <cstdint>
#include <cstring>
#include <random>

namespace ferry::trace {
namespace {

// Trace and span ids need to be unique, not unpredictable: splitmix64 over a per-thread state
// seeded once from the system's entropy is a few instructions a draw and passes BigCrush, where
// a Mersenne twister costs a state refill every 312 draws.
uint64_t NextRandom() {
  thread_local uint64_t state =
      (static_cast<uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// The 16 hex digits of `value`, most significant first, without a loop or a table: each nibble
// is spread into a byte of its own, then every byte becomes its digit at once.
void WriteHex(uint64_t value, char* out) {
  const auto spread = [](uint64_t half) {
    half = (half | (half << 16)) & 0x0000FFFF0000FFFFull;
    half = (half | (half << 8)) & 0x00FF00FF00FF00FFull;
    return (half | (half << 4)) & 0x0F0F0F0F0F0F0F0Full;
  };
  const auto digits = [](uint64_t nibbles) {
    const uint64_t letters = ((nibbles + 0x0606060606060606ull) >> 4) & 0x0101010101010101ull;
    return nibbles + 0x3030303030303030ull + letters * ('a' - '0' - 10);
  };
  // Spread leaves the least significant nibble in the lowest byte; swapping the bytes puts the
  // most significant first in memory on this little-endian target.
  static_assert(std::endian::native == std::endian::little);
  const uint64_t high = __builtin_bswap64(digits(spread(value >> 32)));
  const uint64_t low = __builtin_bswap64(digits(spread(value & 0xFFFFFFFFull)));
  std::memcpy(out, &high, 8);
  std::memcpy(out + 8, &low, 8);
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

bool IsLowerHex(std::string_view text) {
  for (const char c : text) {
    if (HexDigit(c) < 0) return false;
  }
  return !text.empty();
}

bool AllZero(std::string_view text) {
  return text.find_first_not_of('0') == std::string_view::npos;
}

}  // namespace

bool IsTraceId(std::string_view id) {
  return id.size() == kTraceIdLength && IsLowerHex(id) && !AllZero(id);
}

void FillRandomTraceId(std::string* out) {
  out->resize(kTraceIdLength);
  uint64_t high = 0;
  while (high == 0) high = NextRandom();  // all zeros is the invalid trace id
  WriteHex(high, out->data());
  WriteHex(NextRandom(), out->data() + 16);
}

uint64_t RandomSpanId() {
  uint64_t id = 0;
  while (id == 0) id = NextRandom();
  return id;
}

void FormatSpanId(uint64_t id, std::string* out) {
  if (id == 0) {
    out->clear();
    return;
  }
  out->resize(kSpanIdLength);
  WriteHex(id, out->data());
}

uint64_t ParseSpanId(std::string_view hex) {
  if (hex.size() != kSpanIdLength) return 0;
  uint64_t id = 0;
  for (const char c : hex) {
    const int digit = HexDigit(c);
    if (digit < 0) return 0;
    id = (id << 4) | static_cast<uint64_t>(digit);
  }
  return id;
}

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
