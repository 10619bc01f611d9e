#pragma once

#include <string>
#include <string_view>

#include "ferry/codec/status.h"
#include "ferry/framework/server_context.h"

namespace ferry::like {

// The user a call acts for. `requested` is the request's user_id field.
Status CallerUser(const ServerContext& context, std::string_view requested, std::string* user);

}  // namespace ferry::like
