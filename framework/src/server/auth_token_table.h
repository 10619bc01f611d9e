#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "ferry/codec/status.h"

namespace ferry::wire {
class RpcMeta;
}

namespace ferry::server {

// Compatibility with clients of protocol 1.1, which may send an auth token once per connection
// under an index and then only the index (docs/protocol.md, "Auth token indexing"). Clients of
// 1.2 send the token whole; servers still accept 1.1's indices so that older clients keep
// working. The tokens one connection's client defined live in slot `index % kSlots` until the
// next definition for that slot. IO thread only.
class AuthTokenTable {
 public:
  static constexpr uint64_t kSlots = 16;

  // For a meta with an index: records a definition, or fills auth_token from the slot a
  // reference names. INVALID_ARGUMENT for a reference to an index not held, or a token too long
  // to hold. Inline for the usual request, which carries no index.
  Status Resolve(wire::RpcMeta* meta);

 private:
  struct Token {
    uint64_t index = 0;  // 0: empty
    std::string token;
  };
  std::array<Token, kSlots> slots_;
};

}  // namespace ferry::server
