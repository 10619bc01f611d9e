#pragma once

#include <string>
#include <string_view>

#include "ferry/codec/status.h"
#include "ferry/framework/server_context.h"

namespace ferry::like {

// The user a call acts for: the user its token names (ServerContext::verified_user(), set by
// the `user_token` filter), never a user id the request merely carries. UNAUTHENTICATED
// without a verified user; PERMISSION_DENIED when `requested` (the request's user_id field,
// which may be empty) names another user.
Status CallerUser(const ServerContext& context, std::string_view requested, std::string* user);

}  // namespace ferry::like
