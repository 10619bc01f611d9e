#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace ferry::fuzz {

// The longest budget a deadline is made of (server/server_call.cc): a year. A longer one is no
// deadline in a binary meta, and refused in the gateway's X-Ferry-Timeout-Ms.
inline constexpr uint64_t kMaxTimeoutUs = uint64_t{365} * 24 * 3600 * 1000 * 1000;

// A span id as ServerContext shows it: 16 lowercase hex digits, "" for none (0).
inline std::string SpanIdText(uint64_t id) {
  if (id == 0) return "";
  char text[17];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(id));
  return text;
}

inline bool IsLowerHex(std::string_view text, size_t length) {
  if (text.size() != length) return false;
  for (const char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

inline bool AllZeros(std::string_view text) {
  return text.find_first_not_of('0') == std::string_view::npos;
}

// The deadline a call with `budget` has, read between `sent` and `answered`.
inline bool DeadlineWithin(std::chrono::steady_clock::time_point deadline,
                           std::chrono::steady_clock::time_point sent,
                           std::chrono::steady_clock::time_point answered,
                           std::chrono::microseconds budget) {
  return deadline >= sent + budget && deadline <= answered + budget;
}

}  // namespace ferry::fuzz
