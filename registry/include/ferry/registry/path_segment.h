#pragma once

#include <string_view>

#include "ferry/codec/status.h"

namespace ferry::registry {

// Names that become one znode path segment: registry namespaces and service names, idgen
// namespaces. Every registry checks the same rules, so a name that works with one works with
// all, and a path built from such names parses back: not empty, not "." or "..", no '/',
// whitespace or control characters. INVALID_ARGUMENT naming `what` ("service", "namespace",
// "idgen namespace") and the name otherwise.
Status CheckPathSegment(std::string_view what, std::string_view name);

}  // namespace ferry::registry
