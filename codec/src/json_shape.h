#pragma once

#include <string_view>

#include "ferry/codec/status.h"

namespace ferry::codec::json {

// Whether `json` is within ParseJson's limits whatever the message type: RFC 8259 JSON (any
// value at the root, as well-known types have), nested at most kMaxJsonDepth deep, no key twice
// in one object. protobuf's own converter reads only text that is: it does not count arrays
// towards its nesting limit, and its cost grows with the nesting times the values.
Status CheckShape(std::string_view json);

}  // namespace ferry::codec::json
