#pragma once

#include <spdlog/spdlog.h>

#include <memory>

namespace ferry::idgen {

// Ferry's "ferry" logger once the framework (or the application) has created it, spdlog's
// default logger before. Looked up on every use, which is rare (clock trouble, lease changes),
// so a logger set up later is honoured.
inline std::shared_ptr<spdlog::logger> Log() {
  if (auto logger = spdlog::get("ferry")) return logger;
  return spdlog::default_logger();
}

}  // namespace ferry::idgen
