#pragma once

#include <chrono>
#include <cstddef>
#include <string_view>

namespace ferry::testsupport {

// Lets a test wait for a line that Ferry logs through the "ferry" spdlog logger, so that "the
// failure was logged" is asserted, not assumed. The first LogCapture adds a capturing sink to
// that logger (creating it, on stderr, if the process has none yet); create it before any
// registry thread runs.
class LogCapture {
 public:
  LogCapture();

  // True once a message containing `needle` has been logged since construction, `count` times.
  bool WaitFor(std::string_view needle, std::chrono::milliseconds timeout, size_t count = 1) const;

 private:
  size_t start_;
};

}  // namespace ferry::testsupport
