#include "cluster/retry_budget.h"

#include <gtest/gtest.h>

namespace ferry::cluster {
namespace {

using namespace std::chrono_literals;
using Clock = RetryBudget::Clock;

int SpendAll(RetryBudget& budget, Clock::time_point now, int limit = 100000) {
  int spent = 0;
  while (spent < limit && budget.TrySpend(now)) ++spent;
  return spent;
}

TEST(RetryBudgetTest, StartsWithOneSecondOfTheMinimum) {
  const Clock::time_point t0{};
  RetryBudget budget(0.1, 5, t0);
  EXPECT_EQ(SpendAll(budget, t0), 5);
}

TEST(RetryBudgetTest, EachCallDepositsTheRatio) {
  const Clock::time_point t0{};
  RetryBudget budget(0.1, 0, t0);
  EXPECT_EQ(SpendAll(budget, t0), 0);
  for (int i = 0; i < 100; ++i) budget.Deposit();
  EXPECT_EQ(SpendAll(budget, t0), 10);
  for (int i = 0; i < 9; ++i) budget.Deposit();
  EXPECT_EQ(SpendAll(budget, t0), 0) << "0.9 of a token is not a retry";
  budget.Deposit();
  EXPECT_EQ(SpendAll(budget, t0), 1);
}

TEST(RetryBudgetTest, MinimumRefillsWithTimeWithoutRoundingLosses) {
  const Clock::time_point t0{};
  RetryBudget budget(0.0, 10, t0);
  EXPECT_EQ(SpendAll(budget, t0), 10);
  // 10 per second in 1 ms steps: 1000 refills of 1/100 of a token each add up to 10.
  int spent = 0;
  for (int ms = 1; ms <= 1000; ++ms) spent += SpendAll(budget, t0 + std::chrono::milliseconds(ms));
  EXPECT_EQ(spent, 10);
}

TEST(RetryBudgetTest, BalanceIsCappedAtTenSecondsOfTheMinimum) {
  const Clock::time_point t0{};
  RetryBudget budget(1.0, 2, t0);
  for (int i = 0; i < 1000; ++i) budget.Deposit();
  EXPECT_EQ(SpendAll(budget, t0 + 1h), 20);
}

TEST(RetryBudgetTest, AtLeastTenTokensFitWhenThereIsNoMinimum) {
  const Clock::time_point t0{};
  RetryBudget budget(0.5, 0, t0);
  for (int i = 0; i < 1000; ++i) budget.Deposit();
  EXPECT_EQ(SpendAll(budget, t0), 10);
}

TEST(RetryBudgetTest, ZeroRatioAndZeroMinimumNeverRetries) {
  const Clock::time_point t0{};
  RetryBudget budget(0.0, 0, t0);
  for (int i = 0; i < 1000; ++i) budget.Deposit();
  EXPECT_EQ(SpendAll(budget, t0 + 10s), 0);
}

}  // namespace
}  // namespace ferry::cluster
