#include "client/auth_token_index.h"

#include <cstring>

namespace ferry::client {
namespace {

// RpcMeta tags: field number << 3 | wire type.
constexpr char kAuthTokenTag = (5 << 3) | 2;       // auth_token, length-delimited
constexpr char kAuthTokenIndexTag = (9 << 3) | 0;  // auth_token_index, varint

size_t WriteVarint(uint64_t value, char* out) {
  size_t n = 0;
  for (; value >= 0x80; value >>= 7) out[n++] = static_cast<char>(value | 0x80);
  out[n++] = static_cast<char>(value);
  return n;
}

// Tokens end in MAC bytes, whose last word spreads them evenly; Fibonacci hashing spreads
// other tokens too.
size_t SlotOf(std::string_view token) {
  static_assert(AuthTokenIndex::kSlots == 16, "the shift keeps the top 4 bits");
  uint64_t word = 0;
  if (token.size() >= sizeof word) {
    std::memcpy(&word, token.data() + token.size() - sizeof word, sizeof word);
  } else {
    std::memcpy(&word, token.data(), token.size());
  }
  return static_cast<size_t>((word * 0x9E3779B97F4A7C15ULL) >> 60);
}

// Word by word, inline: a call of memcmp costs more than comparing a few dozen bytes.
inline bool SameBytes(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  const auto word = [](const char* p) {
    uint64_t w;
    std::memcpy(&w, p, sizeof w);
    return w;
  };
  const size_t n = a.size();
  if (n < sizeof(uint64_t)) return a == b;
  for (size_t i = 0; i + sizeof(uint64_t) < n; i += sizeof(uint64_t)) {
    if (word(a.data() + i) != word(b.data() + i)) return false;
  }
  const size_t last = n - sizeof(uint64_t);
  return word(a.data() + last) == word(b.data() + last);
}

}  // namespace

bool AuthTokenIndex::Refer(std::string_view token, uint64_t link, bool peer_resolves,
                           Reference* reference) {
  if (link != link_) {
    for (Slot& slot : slots_) slot.index = 0;
    link_ = link;
  }
  const Slot& slot = slots_[SlotOf(token)];
  if (!peer_resolves || slot.index == 0 || !SameBytes(slot.token, token)) return false;
  reference->bytes[0] = kAuthTokenIndexTag;
  reference->size = 1 + WriteVarint(slot.index, reference->bytes.data() + 1);
  return true;
}

void AuthTokenIndex::Define(std::string_view token, std::string* meta) {
  const size_t at = SlotOf(token);
  Slot& slot = slots_[at];
  // Until the server is known to resolve indices, a held token is defined again, as before.
  if (slot.index == 0 || !SameBytes(slot.token, token)) {
    slot.index = ++generation_ * kSlots + at;
    slot.token.assign(token);
  }
  char varint[10];
  meta->push_back(kAuthTokenTag);
  meta->append(varint, WriteVarint(token.size(), varint));
  meta->append(token);
  meta->push_back(kAuthTokenIndexTag);
  meta->append(varint, WriteVarint(slot.index, varint));
}

}  // namespace ferry::client
