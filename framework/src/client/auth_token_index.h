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

 private:
  // RpcMeta.auth_token_index's tag: field 9, varint.
  static constexpr char kIndexTag = (9 << 3) | 0;
  // Two bytes: the longest varint protobuf parses without a call out of line.
  static constexpr size_t kPaddedVarintBytes = 2;

 public:
  // The field a request with a token is encoded with ahead of its meta's own fields
  // (codec::AppendFrame's `meta_prefix`): auth_token_index 0, meaning none, as a varint padded
  // to the width of the largest index, which protobuf allows. A reference overwrites it in
  // place, so the usual request is queued in one piece; a definition takes its place.
  static constexpr size_t kPlaceholderSize = 1 + kPaddedVarintBytes;
  static constexpr std::array<char, kPlaceholderSize> kPlaceholder{kIndexTag, '\x80', '\x00'};
  // The largest index a placeholder holds; indices start over after it, every 1023 definitions.
  static constexpr uint64_t kMaxIndex = (uint64_t{1} << (7 * kPaddedVarintBytes)) - 1;

  // `generation`: where the count of definitions starts, for tests that need a wrap soon.
  explicit AuthTokenIndex(uint64_t generation = 0) : generation_(generation) {}

  // The most Define() appends for a token of `token_size` bytes: two tags, two varints.
  static constexpr size_t MaxDefinitionSize(size_t token_size) { return token_size + 2 + 2 * 10; }

  // True, with the kPlaceholderSize bytes at `placeholder` made a reference, when the server
  // of link `link` holds `token` and `peer_resolves` (its frames on this link say it speaks
  // 1.1). The first call for a new link forgets what the previous link's server held. Inline:
  // it runs for nearly every call.
  bool Refer(std::string_view token, uint64_t link, bool peer_resolves, char* placeholder) {
    if (link != link_) Forget(link);
    if (token.size() > codec::kMaxIndexedAuthTokenBytes) return false;
    const Slot& slot = slots_[SlotOf(token)];
    if (!peer_resolves || slot.index == 0 || !SameBytes(slot.token, token)) return false;
    placeholder[0] = kIndexTag;
    for (size_t i = 0; i < kPaddedVarintBytes; ++i) {
      const auto group = static_cast<uint8_t>((slot.index >> (7 * i)) & 0x7f);
      placeholder[1 + i] = static_cast<char>(i + 1 < kPaddedVarintBytes ? group | 0x80 : group);
    }
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
  // Indices are generation * kSlots + slot, so that each definition gets one not used by the
  // link's previous 1022 definitions. That a reference resolves to the token it was written
  // for follows from the order alone (see the class comment); the fresh index makes a mistake
  // in that order fail loudly (INVALID_ARGUMENT) instead of sending another token. Counted from
  // 0 on each link, as the server's table starts empty.
  uint64_t generation_ = 0;
  std::array<Slot, kSlots> slots_;
};

}  // namespace ferry::client
