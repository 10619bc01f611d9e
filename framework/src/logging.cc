#include "ferry/framework/logging.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <array>
#include <memory>
#include <string>
#include <utility>

#include "logger.h"

namespace ferry {
namespace {

std::shared_ptr<spdlog::logger> CreateLogger() {
  // An application may have registered its own "ferry" logger (e.g. to a file) before first
  // use; respect it rather than fail on the duplicate name.
  if (auto existing = spdlog::get("ferry")) return existing;
  try {
    return spdlog::stderr_color_mt("ferry");
  } catch (const spdlog::spdlog_ex&) {
    // Lost a registration race with the application.
    return spdlog::get("ferry");
  }
}

}  // namespace

spdlog::logger& Logger() {
  // Held here as well as in spdlog's registry, so that logging from late destructors stays
  // valid even after spdlog::shutdown() or drop_all().
  static const std::shared_ptr<spdlog::logger> logger = CreateLogger();
  return *logger;
}

std::optional<spdlog::level::level_enum> ParseLogLevel(std::string_view name) {
  static constexpr std::array<std::pair<std::string_view, spdlog::level::level_enum>, 6> kLevels{{
      {"trace", spdlog::level::trace},
      {"debug", spdlog::level::debug},
      {"info", spdlog::level::info},
      {"warn", spdlog::level::warn},
      {"error", spdlog::level::err},
      {"off", spdlog::level::off},
  }};
  for (const auto& [level_name, level] : kLevels) {
    if (level_name == name) return level;
  }
  return std::nullopt;
}

Status SetLogLevel(std::string_view level) {
  const auto parsed = ParseLogLevel(level);
  if (!parsed) {
    return Status(StatusCode::INVALID_ARGUMENT, "unknown log level '" + std::string(level) +
                                                    "' (expected one of " +
                                                    std::string(kLogLevelNames) + ")");
  }
  Logger().set_level(*parsed);
  return Status::Ok();
}

}  // namespace ferry
