#pragma once

#include <string_view>

#include "ferry/codec/status.h"

namespace ferry {

// Ferry logs through spdlog's logger named "ferry". INVALID_ARGUMENT on an unknown level name.
Status SetLogLevel(std::string_view level);

}  // namespace ferry
