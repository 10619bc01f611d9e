#pragma once

#include <spdlog/logger.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>

#include "logger.h"
#include "thread_annotations.h"

namespace ferry {

// Bounds how often one kind of line is logged, for lines a peer can cause at will (frames it
// sends, connections it makes) and that would otherwise let it flood the log before it ever
// authenticated: at most `burst` lines per `interval`; the first line let through after some
// were held back is preceded by one saying how many. One instance per kind, shared by every
// connection, so that many peers together are bounded too. Safe from any thread.
class LogRateLimiter {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr uint32_t kDefaultBurst = 10;
  static constexpr Clock::duration kDefaultInterval = std::chrono::seconds(10);

  // `kind` names the lines in the one about those held back, e.g. "ferry server: ignored
  // frames". `now` is the clock, for tests.
  explicit LogRateLimiter(std::string kind, uint32_t burst = kDefaultBurst,
                          Clock::duration interval = kDefaultInterval,
                          std::function<Clock::time_point()> now = Clock::now);

  struct Admission {
    bool log = false;         // the line may be logged
    uint64_t suppressed = 0;  // lines held back before it, to report first
  };
  // Counts one line of this kind now.
  Admission Admit();

  // Logs the line through Logger() at `level` unless the limit holds it back.
  template <class... Args>
  void Log(spdlog::level::level_enum level, spdlog::format_string_t<Args...> format,
           Args&&... args) {
    spdlog::logger& logger = Logger();
    if (!logger.should_log(level)) return;
    const Admission admission = Admit();
    if (!admission.log) return;
    if (admission.suppressed != 0) ReportSuppressed(logger, level, admission.suppressed);
    logger.log(level, format, std::forward<Args>(args)...);
  }

 private:
  void ReportSuppressed(spdlog::logger& logger, spdlog::level::level_enum level,
                        uint64_t suppressed) const;

  const std::string kind_;
  const uint32_t burst_;
  const Clock::duration interval_;
  const std::function<Clock::time_point()> now_;
  Mutex mu_;
  Clock::time_point window_start_ FERRY_GUARDED_BY(mu_){};
  uint32_t in_window_ FERRY_GUARDED_BY(mu_) = 0;
  uint64_t suppressed_ FERRY_GUARDED_BY(mu_) = 0;
  bool started_ FERRY_GUARDED_BY(mu_) = false;
};

}  // namespace ferry
