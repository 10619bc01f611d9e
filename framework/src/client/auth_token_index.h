#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "ferry/codec/frame_header.h"

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
  // forgets what the previous link's server held. Inline: it runs for nearly every call.
  bool Refer(std::string_view token, uint64_t link, bool peer_resolves, Reference* reference) {
    if (link != link_) Forget(link);
    if (token.size() > codec::kMaxIndexedAuthTokenBytes) return false;
    const Slot& slot = slots_[SlotOf(token)];
    if (!peer_resolves || slot.index == 0 || !SameBytes(slot.token, token)) return false;
    reference->bytes[0] = kIndexTag;
    reference->size = 1 + WriteVarint(slot.index, reference->bytes.data() + 1);
    return true;
  }
  // After Refer() returned false for `token`: appends to `meta` the token and the index the
  // server is to hold it under from now on; the token alone when it is too long to index.
  void Define(std::string_view token, std::string* meta);

 private:
  struct Slot {
    uint64_t index = 0;  // 0: empty
    std::string token;
  };

  // RpcMeta.auth_token_index's tag: field 9, varint.
  static constexpr char kIndexTag = (9 << 3) | 0;

  static size_t WriteVarint(uint64_t value, char* out) {
    size_t n = 0;
    for (; value >= 0x80; value >>= 7) out[n++] = static_cast<char>(value | 0x80);
    out[n++] = static_cast<char>(value);
    return n;
  }
  // Tokens end in MAC bytes, whose last word spreads them evenly; Fibonacci hashing spreads
  // other tokens too.
  static size_t SlotOf(std::string_view token) {
    static_assert(kSlots == 16, "the shift keeps the top 4 bits");
    uint64_t word = 0;
    if (token.size() >= sizeof word) {
      std::memcpy(&word, token.data() + token.size() - sizeof word, sizeof word);
    } else {
      std::memcpy(&word, token.data(), token.size());
    }
    return static_cast<size_t>((word * 0x9E3779B97F4A7C15ULL) >> 60);
  }
  // Word by word: a call of memcmp costs more than comparing a few dozen bytes.
  static bool SameBytes(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    const size_t n = a.size();
    if (n < sizeof(uint64_t)) return a == b;
    for (size_t i = 0; i + sizeof(uint64_t) < n; i += sizeof(uint64_t)) {
      if (Word(a.data() + i) != Word(b.data() + i)) return false;
    }
    return Word(a.data() + n - sizeof(uint64_t)) == Word(b.data() + n - sizeof(uint64_t));
  }
  static uint64_t Word(const char* p) {
    uint64_t word;
    std::memcpy(&word, p, sizeof word);
    return word;
  }

  void Forget(uint64_t link);

  uint64_t link_ = 0;
  // Indices are generation * kSlots + slot, so that each definition gets one never used before
  // on the link and a reference can never resolve to a token defined after it was written.
  uint64_t generation_ = 0;
  std::array<Slot, kSlots> slots_;
};

}  // namespace ferry::client
