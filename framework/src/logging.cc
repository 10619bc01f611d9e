#include "ferry/framework/logging.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "logger.h"

namespace ferry {
namespace {

std::shared_ptr<spdlog::logger> CreateLogger() {
  try {
    return spdlog::stderr_color_mt("ferry");
  } catch (const spdlog::spdlog_ex&) {
    // Lost a registration race with the application.
    return spdlog::get("ferry");
  }
}

}  // namespace

spdlog::logger& Logger() {
  // Every logger handed out is kept for the process, never destroyed: callers hold plain
  // references, and a destructor that logs after spdlog::shutdown() still has its logger.
  static auto* const mu = new std::mutex;
  static auto* const handed_out = new std::vector<std::shared_ptr<spdlog::logger>>;
  static spdlog::logger* last = nullptr;

  std::shared_ptr<spdlog::logger> current = spdlog::get("ferry");
  std::lock_guard lock(*mu);
  if (current == nullptr) {
    if (last != nullptr) return *last;  // dropped from spdlog's registry: keep logging there
    current = CreateLogger();
  }
  if (std::find(handed_out->begin(), handed_out->end(), current) == handed_out->end()) {
    handed_out->push_back(current);
  }
  last = current.get();
  return *last;
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
