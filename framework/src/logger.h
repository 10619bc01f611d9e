#pragma once

#include <spdlog/logger.h>

#include <optional>
#include <string_view>

#include "ferry/framework/logging.h"

namespace ferry {

// The level names SetLogLevel and the `log.level` config key accept; nullopt for any other.
std::optional<spdlog::level::level_enum> ParseLogLevel(std::string_view name);
inline constexpr std::string_view kLogLevelNames = "trace, debug, info, warn, error, off";

}  // namespace ferry
