#include <string>
#include <string_view>

#include "ferry/framework/logging.h"

namespace ferry {
namespace {

constexpr std::string_view kRedacted = "<redacted>";
constexpr std::string_view kSpaces = " \t\r\n";

// A DSN's credentials without a scheme ("app:pw@tcp(db:3306)/shop", "app:pw@db/shop"): in each
// word, everything up to its last '@', when a ':' comes before that '@'.
std::string RedactedDsn(std::string_view text) {
  std::string out;
  size_t copied = 0;
  size_t start = text.find_first_not_of(kSpaces);
  while (start != std::string_view::npos) {
    size_t end = text.find_first_of(kSpaces, start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view word = text.substr(start, end - start);
    const size_t at = word.rfind('@');
    const size_t colon = word.find(':');
    if (at != std::string_view::npos && colon != std::string_view::npos && colon > 0 &&
        colon < at) {
      out.append(text.substr(copied, start - copied)).append(kRedacted);
      copied = start + at;
    }
    start = text.find_first_not_of(kSpaces, end);
  }
  if (copied == 0) return std::string(text);
  out.append(text.substr(copied));
  return out;
}

}  // namespace

std::string RedactedUrl(std::string_view url) {
  const size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return RedactedDsn(url);
  const size_t authority = scheme + 3;
  // The user information ends at the authority's last '@': a password may hold '@' (and '/'
  // too, for registries that take none of a path), hosts never do.
  const size_t at = url.rfind('@');
  if (at == std::string_view::npos || at < authority) return std::string(url);
  return std::string(url.substr(0, authority)) + std::string(kRedacted) +
         std::string(url.substr(at));
}

}  // namespace ferry
