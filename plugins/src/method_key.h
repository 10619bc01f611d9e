#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace ferry::plugins {

template <class Word>
Word LoadWord(const char* p) {
  Word word;
  std::memcpy(&word, p, sizeof word);
  return word;
}

// Equal bytes, compared inline: for names of a few dozen bytes two calls to memcmp cost more
// than the comparison itself, on every call of every filter that checks a method. The last
// word overlaps the one before it rather than ending in a loop over bytes.
inline bool SameBytes(const char* a, const char* b, size_t n) {
  if (n >= sizeof(uint64_t)) {
    for (size_t i = 0; i + sizeof(uint64_t) < n; i += sizeof(uint64_t)) {
      if (LoadWord<uint64_t>(a + i) != LoadWord<uint64_t>(b + i)) return false;
    }
    const size_t last = n - sizeof(uint64_t);
    return LoadWord<uint64_t>(a + last) == LoadWord<uint64_t>(b + last);
  }
  if (n >= sizeof(uint32_t)) {
    const size_t last = n - sizeof(uint32_t);
    return LoadWord<uint32_t>(a) == LoadWord<uint32_t>(b) &&
           LoadWord<uint32_t>(a + last) == LoadWord<uint32_t>(b + last);
  }
  for (size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

// Whether `key` is "<service>/<method>": how the filters name a method in their configuration
// and caches, checked without building the key.
inline bool IsMethodKey(std::string_view key, std::string_view service, std::string_view method) {
  return key.size() == service.size() + 1 + method.size() && key[service.size()] == '/' &&
         SameBytes(key.data(), service.data(), service.size()) &&
         SameBytes(key.data() + service.size() + 1, method.data(), method.size());
}

}  // namespace ferry::plugins
