#pragma once

#include <spdlog/common.h>

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ferry::testsupport {

// Lets a test wait for a line that Ferry logs through the "ferry" spdlog logger, so that "the
// failure was logged" is asserted, not assumed. The first LogCapture adds a capturing sink to
// that logger (creating it, on stderr, if the process has none yet); create it before any
// thread that logs runs.
class LogCapture {
 public:
  LogCapture();

  // True once a message containing `needle` has been logged since construction, `count` times.
  bool WaitFor(std::string_view needle, std::chrono::milliseconds timeout, size_t count = 1) const;
  // Messages at `level` containing `needle`, logged since construction.
  size_t Count(spdlog::level::level_enum level, std::string_view needle) const;
  // The messages containing `needle` logged since construction, oldest first.
  std::vector<std::string> Messages(std::string_view needle) const;

 private:
  size_t start_;
};

}  // namespace ferry::testsupport
