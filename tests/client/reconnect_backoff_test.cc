#include "client/reconnect_backoff.h"

#include <gtest/gtest.h>

#include "client/request_meta.h"

namespace ferry::client {
namespace {

using std::chrono::milliseconds;

TEST(ReconnectBackoffTest, DoublesWithJitterUpToTheCap) {
  ReconnectBackoff backoff(milliseconds(100), milliseconds(1000));
  // Steps 100, 200, 400, 800, then capped at 1000; each jittered by +-20%.
  for (const int step : {100, 200, 400, 800, 1000, 1000, 1000}) {
    const milliseconds delay = backoff.Next();
    EXPECT_GE(delay.count(), step * 8 / 10) << "step " << step;
    EXPECT_LE(delay.count(), std::min(step * 12 / 10, 1000)) << "step " << step;
  }
}

TEST(ReconnectBackoffTest, ResetStartsOverFromTheInitialDelay) {
  ReconnectBackoff backoff(milliseconds(100), milliseconds(1000));
  for (int i = 0; i < 5; ++i) backoff.Next();
  backoff.Reset();
  EXPECT_LE(backoff.Next().count(), 120);
}

TEST(ReconnectBackoffTest, JitterSpreadsTheDelays) {
  ReconnectBackoff backoff(milliseconds(1000), milliseconds(1000));
  const milliseconds first = backoff.Next();
  bool differs = false;
  for (int i = 0; i < 50 && !differs; ++i) differs = backoff.Next() != first;
  EXPECT_TRUE(differs);
}

}  // namespace
}  // namespace ferry::client
