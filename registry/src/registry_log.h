#pragma once

#include <spdlog/spdlog.h>

#include <memory>

namespace ferry::registry {

// Ferry's "ferry" logger once the framework has created it, spdlog's default logger before.
// Looked up on every use (registry events are rare) so that a logger the application sets up
// later is honoured.
inline std::shared_ptr<spdlog::logger> Log() {
  if (auto logger = spdlog::get("ferry")) return logger;
  return spdlog::default_logger();
}

}  // namespace ferry::registry
