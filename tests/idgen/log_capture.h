#pragma once

#include <spdlog/common.h>

#include <cstddef>
#include <string_view>

namespace ferry::idgen::testutil {

// Counts what idgen logs through the "ferry" spdlog logger from construction on, so that "the
// refusal was logged, once" is asserted rather than assumed. The first LogCapture adds a
// capturing sink to that logger, creating it (on stderr) if the process has none yet.
class LogCapture {
 public:
  LogCapture();

  // Messages at `level` containing `needle`.
  size_t Count(spdlog::level::level_enum level, std::string_view needle) const;

 private:
  size_t start_;
};

}  // namespace ferry::idgen::testutil
