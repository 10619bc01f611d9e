#pragma once

#include <string_view>

namespace ferry::plugins {

// Whether `text` matches `pattern`, in which `*` stands for any run of characters (none too) and
// every other character for itself: "ops-*", "*.example", "*". For identity patterns (callers,
// users, roles, certificate names) of `authz` and `auth`.
inline bool GlobMatches(std::string_view pattern, std::string_view text) {
  size_t p = 0;
  size_t t = 0;
  // Where the last `*` was, and the text it has taken up to: on a mismatch it takes one more.
  size_t star = std::string_view::npos;
  size_t star_text = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      star_text = t;
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++star_text;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace ferry::plugins
