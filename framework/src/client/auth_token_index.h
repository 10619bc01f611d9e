#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ferry::client {

// The client's half of auth token indexing (docs/protocol.md, "Auth token indexing"): which
// tokens the server at the other end of the current link holds, and under which index, so that
// a call whose token the server already holds sends a varint instead of the token. gRPC gets the
// same from HPACK for its `authorization` header.
//
// The server keeps a token in slot `index % kSlots` until the next definition for that slot,
// and reads definitions and references in the order they were queued. This mirror of its slots
// is exact only if it is updated in that order too, so the connection calls Refer() and
// Define() under its outbound queue's lock, for the frame it then queues. Not thread-safe
// otherwise.
class AuthTokenIndex {
 public:
  static constexpr uint64_t kSlots = 16;

  // RpcMeta fields that carry a token by reference: auth_token_index alone.
  struct Reference {
    std::array<char, 1 + 10> bytes;  // tag, varint
    size_t size = 0;
  };

  // The most Define() appends for a token of `token_size` bytes: two tags, two varints.
  static constexpr size_t MaxDefinitionSize(size_t token_size) { return token_size + 2 + 2 * 10; }

  // True, with `*reference` filled, when the server of link `link` holds `token` and
  // `peer_resolves` (its frames on this link say it speaks 1.1). The first call for a new link
  // forgets what the previous link's server held.
  bool Refer(std::string_view token, uint64_t link, bool peer_resolves, Reference* reference);
  // After Refer() returned false for `token`: appends to `meta` the token and the index the
  // server is to hold it under from now on.
  void Define(std::string_view token, std::string* meta);

 private:
  struct Slot {
    uint64_t index = 0;  // 0: empty
    std::string token;
  };

  uint64_t link_ = 0;
  // Indices are generation * kSlots + slot, so that each definition gets one never used before
  // on the link and a reference can never resolve to a token defined after it was written.
  uint64_t generation_ = 0;
  std::array<Slot, kSlots> slots_;
};

}  // namespace ferry::client
