#include "log_rate_limiter.h"

namespace ferry {

LogRateLimiter::LogRateLimiter(std::string kind, uint32_t burst, Clock::duration interval,
                               std::function<Clock::time_point()> now)
    : kind_(std::move(kind)), burst_(burst), interval_(interval), now_(std::move(now)) {}

LogRateLimiter::Admission LogRateLimiter::Admit() {
  const Clock::time_point now = now_();
  MutexLock lock(mu_);
  if (!started_ || now - window_start_ >= interval_) {
    started_ = true;
    window_start_ = now;
    in_window_ = 0;
  }
  if (in_window_ >= burst_) {
    ++suppressed_;
    return {};
  }
  ++in_window_;
  return {.log = true, .suppressed = std::exchange(suppressed_, 0)};
}

void LogRateLimiter::ReportSuppressed(spdlog::logger& logger, spdlog::level::level_enum level,
                                      uint64_t suppressed) const {
  logger.log(level, "{}: {} similar lines suppressed (at most {} every {} ms)", kind_, suppressed,
             burst_, std::chrono::duration_cast<std::chrono::milliseconds>(interval_).count());
}

}  // namespace ferry
