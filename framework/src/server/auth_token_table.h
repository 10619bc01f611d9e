#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "ferry/codec/status.h"
#include "ferry/rpc_meta.pb.h"

namespace ferry::server {

// The server's half of auth token indexing (docs/protocol.md, "Auth token indexing"): the
// tokens one connection's client defined, each in slot `index % kSlots` until the next
// definition for that slot. Definitions and references are applied in the order the requests
// arrive, which is the order the client queued them in (client::AuthTokenIndex). IO thread only.
class AuthTokenTable {
 public:
  static constexpr uint64_t kSlots = 16;

  struct Token {
    uint64_t index = 0;  // 0: empty
    // Unique among every token any table of this process ever held: equal ids, equal bytes.
    uint64_t id = 0;
    std::string token;
  };

  // Applies what a request's meta says about its token. *token is null when the meta carries no
  // index (its auth_token, if any, is all there is: callers may skip the call then); else the
  // token the request carries, just defined or referred to. INVALID_ARGUMENT for a reference to
  // an index not held: a client bug, or a peer that does not follow the protocol.
  // Inline for the usual request, which refers to a token held.
  Status Resolve(const wire::RpcMeta& meta, const Token** token) {
    const uint64_t index = meta.auth_token_index();
    const Token& slot = slots_[index % kSlots];
    if (index != 0 && slot.index == index && meta.auth_token().empty()) {
      *token = &slot;
      return Status::Ok();
    }
    return ResolveOther(meta, token);
  }

 private:
  Status ResolveOther(const wire::RpcMeta& meta, const Token** token);

  std::array<Token, kSlots> slots_;
};

}  // namespace ferry::server
