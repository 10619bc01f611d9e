#include "ferry/registry/path_segment.h"

#include <algorithm>
#include <string>

namespace ferry::registry {

Status CheckPathSegment(std::string_view what, std::string_view name) {
  const bool bad_char = std::any_of(name.begin(), name.end(), [](char c) {
    return c == '/' || static_cast<unsigned char>(c) <= ' ' || c == '\x7f';
  });
  if (name.empty() || name == "." || name == ".." || bad_char) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  std::string(what) + " name '" + std::string(name) +
                      "' is not usable as one znode path segment (empty, '.', '..', or holds "
                      "'/', whitespace or control characters)");
  }
  return Status::Ok();
}

}  // namespace ferry::registry
