// The redirect's allowance of 404s per client: a bucket per address (IPv6 by /64) that refills
// evenly over the minute.
#include "service/client_budget.h"

#include <gtest/gtest.h>

#include <string>

namespace ferry::shortlink {
namespace {

TEST(ClientBudgetTest, AClientRunsOutRefillsOverTheMinuteAndOthersAreApart) {
  ClientBudget budget(60);
  const int64_t t0 = 1'000'000;
  for (int i = 0; i < 60; ++i) ASSERT_TRUE(budget.Take("192.0.2.1", t0)) << i;
  EXPECT_FALSE(budget.Take("192.0.2.1", t0));
  EXPECT_TRUE(budget.Exhausted("192.0.2.1", t0));
  EXPECT_TRUE(budget.Take("192.0.2.2", t0));  // another client
  // One a second comes back.
  EXPECT_TRUE(budget.Take("192.0.2.1", t0 + 1000));
  EXPECT_FALSE(budget.Take("192.0.2.1", t0 + 1000));
  EXPECT_FALSE(budget.Exhausted("192.0.2.1", t0 + 61'000));
}

TEST(ClientBudgetTest, AnIpv6ClientIsItsSlash64) {
  ClientBudget budget(3);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(budget.Take("2001:db8:1:2::" + std::to_string(i + 1), 0));
  }
  EXPECT_FALSE(budget.Take("2001:db8:1:2:ffff::9", 0));  // the same /64
  EXPECT_TRUE(budget.Take("2001:db8:1:3::1", 0));        // the next /64
}

TEST(ClientBudgetTest, ZeroIsNoLimit) {
  ClientBudget budget(0);
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(budget.Take("192.0.2.1", 0));
  EXPECT_FALSE(budget.Exhausted("192.0.2.1", 0));
}

}  // namespace
}  // namespace ferry::shortlink
