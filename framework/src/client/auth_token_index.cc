#include "client/auth_token_index.h"

namespace ferry::client {

void AuthTokenIndex::Forget(uint64_t link) {
  for (Slot& slot : slots_) slot.index = 0;
  generation_ = 0;
  link_ = link;
}

void AuthTokenIndex::Define(std::string_view token, std::string* meta) {
  // RpcMeta.auth_token's tag: field 5, length-delimited.
  constexpr char kTokenTag = (5 << 3) | 2;
  char varint[10];
  meta->push_back(kTokenTag);
  meta->append(varint, WriteVarint(token.size(), varint));
  meta->append(token);
  if (token.size() > codec::kMaxIndexedAuthTokenBytes) return;
  const size_t at = SlotOf(token);
  Slot& slot = slots_[at];
  // Until the server is known to resolve indices, a held token is defined again, as before.
  if (slot.index == 0 || !SameBytes(slot.token, token)) {
    if (++generation_ > kMaxIndex / kSlots) generation_ = 1;
    slot.index = generation_ * kSlots + at;
    slot.token.assign(token);
  }
  meta->push_back(kIndexTag);
  meta->append(varint, WriteVarint(slot.index, varint));
}

}  // namespace ferry::client
