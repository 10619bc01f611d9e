#include <string>
#include <string_view>

#include "ferry/framework/logging.h"

namespace ferry {

std::string RedactedUrl(std::string_view url) {
  const size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return std::string(url);
  const size_t authority = scheme + 3;
  // The user information ends at the authority's last '@': a password may hold '@' (and '/'
  // too, for registries that take none of a path), hosts never do.
  const size_t at = url.rfind('@');
  if (at == std::string_view::npos || at < authority) return std::string(url);
  return std::string(url.substr(0, authority)) + "<redacted>" + std::string(url.substr(at));
}

}  // namespace ferry
