#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ferry/codec/status.h"

namespace ferry::transport {

struct Endpoint {
  std::string host;
  uint16_t port = 0;
  std::string ToString() const { return host + ":" + std::to_string(port); }
};

// "127.0.0.1:7001", "localhost:7001", "[::1]:7001". INVALID_ARGUMENT, quoting the text, otherwise.
Status ParseEndpoint(std::string_view text, Endpoint* out);

}  // namespace ferry::transport
