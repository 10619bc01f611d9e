#include "server/auth_token_table.h"

#include "ferry/codec/frame_header.h"
#include "ferry/rpc_meta.pb.h"

namespace ferry::server {

Status AuthTokenTable::Resolve(wire::RpcMeta* meta) {
  const uint64_t index = meta->auth_token_index();
  if (index == 0) return Status::Ok();
  Token& slot = slots_[index % kSlots];
  if (meta->auth_token().size() > codec::kMaxIndexedAuthTokenBytes) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "auth token of " + std::to_string(meta->auth_token().size()) +
                      " bytes is too long to index (at most " +
                      std::to_string(codec::kMaxIndexedAuthTokenBytes) + ")");
  }
  if (!meta->auth_token().empty()) {
    slot.index = index;
    slot.token.assign(meta->auth_token());
  } else if (slot.index == index) {
    meta->set_auth_token(slot.token);
  } else {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "auth_token_index " + std::to_string(index) +
                      " refers to no token this connection defined, or one since replaced");
  }
  return Status::Ok();
}

}  // namespace ferry::server
