#include "service/caller_user.h"

namespace ferry::like {

Status CallerUser(const ServerContext&, std::string_view requested, std::string* user) {
  if (requested.empty() || requested.size() > 128) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "user_id: expected 1 to 128 bytes, got " + std::to_string(requested.size()));
  }
  *user = std::string(requested);
  return Status::Ok();
}

}  // namespace ferry::like
