#include "server/auth_token_table.h"

#include "ferry/codec/frame_header.h"
#include "ferry/rpc_meta.pb.h"
#include "server/unique_id.h"

namespace ferry::server {

Status AuthTokenTable::ResolveOther(const wire::RpcMeta& meta, const Token** token) {
  const uint64_t index = meta.auth_token_index();
  *token = nullptr;
  if (index == 0) return Status::Ok();
  Token& slot = slots_[index % kSlots];
  if (meta.auth_token().size() > codec::kMaxIndexedAuthTokenBytes) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "auth token of " + std::to_string(meta.auth_token().size()) +
                      " bytes is too long to index (at most " +
                      std::to_string(codec::kMaxIndexedAuthTokenBytes) + ")");
  }
  if (!meta.auth_token().empty()) {
    // A client defines a token again until it learns that this server resolves indices.
    if (slot.index != index || slot.token != meta.auth_token()) {
      slot.index = index;
      slot.id = NextUniqueId();
      slot.token.assign(meta.auth_token());
    }
  } else if (slot.index != index) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "auth_token_index " + std::to_string(index) +
                      " refers to no token this connection defined, or one since replaced");
  }
  *token = &slot;
  return Status::Ok();
}

}  // namespace ferry::server
