#pragma once

#include <spdlog/logger.h>

#include <optional>
#include <string_view>

namespace ferry {

// The "ferry" spdlog logger (stderr), created on first use; safe to call from any thread.
// Framework code logs through it so that SetLogLevel() governs every message Ferry prints.
spdlog::logger& Logger();

// The level names SetLogLevel and the `log.level` config key accept; nullopt for any other.
std::optional<spdlog::level::level_enum> ParseLogLevel(std::string_view name);
inline constexpr std::string_view kLogLevelNames = "trace, debug, info, warn, error, off";

}  // namespace ferry
