#pragma once

#include <string_view>

#include "ferry/codec/status.h"

namespace ferry::registry {

// Namespaces and service names become single znode path segments, so every registry accepts
// the same names: non-empty, not "." or "..", no '/', no whitespace or control characters.
// INVALID_ARGUMENT naming `what` ("service", "namespace") otherwise.
Status CheckPathSegment(std::string_view what, std::string_view name);

}  // namespace ferry::registry
