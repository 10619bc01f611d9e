#include "log_rate_limiter.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "log_capture.h"

namespace ferry {
namespace {

using std::chrono::milliseconds;
using Clock = LogRateLimiter::Clock;

// A clock the test moves by hand.
struct ManualClock {
  Clock::time_point now = Clock::time_point() + std::chrono::hours(1);
  std::function<Clock::time_point()> Reader() {
    return [this] { return now; };
  }
};

TEST(LogRateLimiterTest, LetsABurstThroughPerIntervalAndCountsTheRest) {
  ManualClock clock;
  LogRateLimiter limiter("test lines", 3, milliseconds(1000), clock.Reader());
  for (int i = 0; i < 3; ++i) {
    const auto admission = limiter.Admit();
    EXPECT_TRUE(admission.log) << i;
    EXPECT_EQ(admission.suppressed, 0u) << i;
  }
  EXPECT_FALSE(limiter.Admit().log);
  clock.now += milliseconds(999);
  EXPECT_FALSE(limiter.Admit().log) << "still the same interval";

  clock.now += milliseconds(1);
  const auto next = limiter.Admit();
  EXPECT_TRUE(next.log);
  EXPECT_EQ(next.suppressed, 2u) << "the first line of a new interval reports the held-back ones";
  EXPECT_EQ(limiter.Admit().suppressed, 0u) << "once";
  EXPECT_TRUE(limiter.Admit().log);
  EXPECT_FALSE(limiter.Admit().log);

  // A quiet spell: the next line starts a new interval, whenever it comes.
  clock.now += std::chrono::hours(5);
  const auto later = limiter.Admit();
  EXPECT_TRUE(later.log);
  EXPECT_EQ(later.suppressed, 1u);
}

TEST(LogRateLimiterTest, LogsTheLinesItLetsThroughAndOneSayingHowManyWereSuppressed) {
  testsupport::LogCapture log;
  ManualClock clock;
  LogRateLimiter limiter("flood test", 2, milliseconds(1000), clock.Reader());
  for (int i = 0; i < 50; ++i) limiter.Log(spdlog::level::warn, "flood test line {}", i);
  EXPECT_EQ(log.Messages("flood test line").size(), 2u);
  EXPECT_TRUE(log.Messages("similar lines suppressed").empty());

  clock.now += milliseconds(1000);
  limiter.Log(spdlog::level::warn, "flood test line {}", 50);
  const std::vector<std::string> suppressed = log.Messages("similar lines suppressed");
  ASSERT_EQ(suppressed.size(), 1u);
  EXPECT_EQ(suppressed[0], "flood test: 48 similar lines suppressed (at most 2 every 1000 ms)");
  EXPECT_EQ(log.Messages("flood test line").back(), "flood test line 50");
  EXPECT_EQ(log.Count(spdlog::level::warn, "flood test"), 4u);
}

TEST(LogRateLimiterTest, LinesBelowTheLevelAreNeitherLoggedNorCounted) {
  testsupport::LogCapture log;
  ManualClock clock;
  LogRateLimiter limiter("quiet test", 1, milliseconds(1000), clock.Reader());
  for (int i = 0; i < 10; ++i) limiter.Log(spdlog::level::trace, "quiet test line {}", i);
  limiter.Log(spdlog::level::warn, "quiet test line {}", 10);
  EXPECT_EQ(log.Messages("quiet test line").size(), 1u);
  EXPECT_TRUE(log.Messages("suppressed").empty());
}

}  // namespace
}  // namespace ferry
