#pragma once

#include <string_view>

#include "ferry/codec/status.h"

namespace spdlog {
class logger;
}

namespace ferry {

// The "ferry" spdlog logger (stderr), created on first use; safe to call from any thread.
// Framework code and providers log through it so that SetLogLevel() governs every line.
spdlog::logger& Logger();

// Ferry logs through spdlog's logger named "ferry". INVALID_ARGUMENT on an unknown level name.
Status SetLogLevel(std::string_view level);

}  // namespace ferry
