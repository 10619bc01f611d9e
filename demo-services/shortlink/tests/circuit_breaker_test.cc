// The read path's breaker: opens after N failures in a row, lets nothing through while open,
// then one probe at a time; a good probe closes it, a bad one opens it again.
#include "service/circuit_breaker.h"

#include <gtest/gtest.h>

namespace ferry::shortlink {
namespace {

using namespace std::chrono_literals;

TEST(CircuitBreakerTest, OpensAfterFailuresInARowThenProbesOneAtATime) {
  CircuitBreaker breaker(3, 100ms);
  const auto t0 = CircuitBreaker::Clock::now();
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(breaker.Allow(t0));
    breaker.Failed(t0);
  }
  ASSERT_TRUE(breaker.Allow(t0));
  breaker.Succeeded();  // the run is broken: counting starts over
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(breaker.Allow(t0));
    breaker.Failed(t0);
  }
  EXPECT_TRUE(breaker.open());
  EXPECT_EQ(breaker.openings(), 1u);
  EXPECT_FALSE(breaker.Allow(t0 + 50ms));
  EXPECT_TRUE(breaker.Allow(t0 + 100ms));   // the probe
  EXPECT_FALSE(breaker.Allow(t0 + 101ms));  // one at a time
  breaker.Failed(t0 + 110ms);               // a bad probe: open again, for another 100 ms
  EXPECT_EQ(breaker.openings(), 2u);
  EXPECT_FALSE(breaker.Allow(t0 + 150ms));
  EXPECT_TRUE(breaker.Allow(t0 + 210ms));
  breaker.Succeeded();
  EXPECT_FALSE(breaker.open());
  EXPECT_TRUE(breaker.Allow(t0 + 211ms));
}

}  // namespace
}  // namespace ferry::shortlink
