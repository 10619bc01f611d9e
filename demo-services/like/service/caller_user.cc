#include "service/caller_user.h"

namespace ferry::like {

Status CallerUser(const ServerContext& context, std::string_view requested, std::string* user) {
  const std::string& verified = context.verified_user();
  if (verified.empty()) {
    return Status(StatusCode::UNAUTHENTICATED,
                  "no verified user: likes need a user token (the server's user_token filter "
                  "verifies it)");
  }
  if (!requested.empty() && requested != verified) {
    return Status(StatusCode::PERMISSION_DENIED, "user_id '" + std::string(requested) +
                                                     "' is not the user of the call's token ('" +
                                                     verified + "')");
  }
  *user = verified;
  return Status::Ok();
}

}  // namespace ferry::like
