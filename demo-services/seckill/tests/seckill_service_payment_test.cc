// The seckill provider over RPC, on both backends (seckill_service_fixture.h): pay racing the pay
// timeout and cancel, a cancelled unit coming back, payments whose result is unknown, and
// refunds.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "seckill_service_fixture.h"

namespace ferry::seckill {
namespace {

using namespace std::chrono_literals;
using namespace ferry::seckill::testing;

// --- pay, timeout, cancel -------------------------------------------------------------------

// Orders for `users` in activity `id`, in the order given.
std::vector<int64_t> PlaceOrders(SeckillServiceProxy& proxy, int64_t id, int count,
                                 const std::string& prefix) {
  std::vector<int64_t> orders;
  for (int i = 0; i < count; ++i) {
    const std::string user = prefix + std::to_string(i);
    auto r = proxy.Purchase(Purchase(id, 77, user, user + "-r"));
    EXPECT_TRUE(r.ok() && r->answer() == ACCEPTED) << user;
  }
  for (int i = 0; i < count; ++i) {
    orders.push_back(WaitCreated(proxy, id, 77, prefix + std::to_string(i) + "-r"));
  }
  return orders;
}

TEST_P(SeckillServiceTest, PayRacingThePayTimeoutNeverBothWins) {
  ASSERT_NO_FATAL_FAILURE(StartProvider());
  constexpr int kRounds = 3;
  constexpr int kOrders = 24;
  int paid_total = 0;
  int refunded_total = 0;
  for (int round = 0; round < kRounds; ++round) {
    const int64_t id = CreateActivity(proxy(), {.stock = kOrders, .pay_timeout_s = 1});
    ASSERT_GT(id, 0);
    const std::vector<int64_t> orders =
        PlaceOrders(proxy(), id, kOrders, "t" + std::to_string(round) + "-");
    std::vector<OrderRecord> records(kOrders);
    for (int i = 0; i < kOrders; ++i) {
      ASSERT_TRUE(store().GetOrder(orders[i], &records[i]).ok());
    }
    // Each payment is aimed at its order's deadline, from 120 ms before to 120 ms after, while
    // the closer (every 20 ms) cancels what is past due.
    std::vector<PayOutcome> outcomes(kOrders, PAY_OUTCOME_UNSPECIFIED);
    std::vector<std::string> errors(kOrders);
    std::vector<std::thread> payers;
    for (int i = 0; i < kOrders; ++i) {
      payers.emplace_back([&, i] {
        const int64_t at = records[i].pay_deadline_ms + (i % 13 - 6) * 20;
        const int64_t wait = at - WallMs();
        if (wait > 0) std::this_thread::sleep_for(std::chrono::milliseconds(wait));
        PayRequest pay;
        pay.set_order_no(orders[i]);
        pay.set_channel("alipay");
        pay.set_channel_txn_id("pay-" + std::to_string(orders[i]));
        auto r = proxy().Pay(pay);
        if (r.ok()) {
          outcomes[i] = r->outcome();
        } else {
          errors[i] = r.status().ToString();
        }
      });
    }
    for (auto& payer : payers) payer.join();
    // Everything unpaid is now past due and will be closed.
    const ReconcileResponse report =
        Settle(proxy(), id, [](const ReconcileResponse& r) { return r.orders_unpaid() == 0; });
    int paid = 0;
    int refunded = 0;
    for (int i = 0; i < kOrders; ++i) {
      ASSERT_TRUE(errors[i].empty()) << errors[i];
      const OrderState state = StateOf(orders[i]);
      if (outcomes[i] == PAID) {
        ++paid;
        EXPECT_EQ(state, OrderState::kPaid) << "order " << orders[i] << " paid and closed";
      } else {
        ++refunded;
        EXPECT_EQ(outcomes[i], REFUND_REQUIRED) << PayOutcome_Name(outcomes[i]);
        EXPECT_EQ(state, OrderState::kCancelled) << "order " << orders[i];
      }
    }
    EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
    EXPECT_EQ(report.orders_paid(), paid);
    EXPECT_EQ(report.orders_cancelled(), refunded);
    EXPECT_EQ(report.refunds_required(), refunded);
    EXPECT_EQ(report.database_stock(), refunded);
    if (cached()) {
      // The cancelled units reach the cache too (the closer publishes them).
      const ReconcileResponse cache = Settle(
          proxy(), id, [&](const ReconcileResponse& r) { return r.cache_stock() == refunded; });
      EXPECT_EQ(cache.cache_stock(), refunded);
    }
    paid_total += paid;
    refunded_total += refunded;
  }
  std::cout << "pay vs timeout: " << paid_total << " paid, " << refunded_total << " closed first\n";
}

TEST_P(SeckillServiceTest, PayRacingCancelOrderNeverBothWins) {
  ASSERT_NO_FATAL_FAILURE(StartProvider());
  constexpr int kOrders = 60;
  const int64_t id = CreateActivity(proxy(), {.stock = kOrders});
  ASSERT_GT(id, 0);
  const std::vector<int64_t> orders = PlaceOrders(proxy(), id, kOrders, "c-");

  std::vector<CallFuture<PayResponse>> pays;
  std::vector<CallFuture<CancelOrderResponse>> cancels;
  for (int i = 0; i < kOrders; ++i) {
    PayRequest pay;
    pay.set_order_no(orders[i]);
    pay.set_channel("wechat");
    pay.set_channel_txn_id("w-" + std::to_string(i));
    CancelOrderRequest cancel;
    cancel.set_order_no(orders[i]);
    // Alternate which one is sent first.
    if (i % 2 == 0) {
      pays.push_back(proxy().PayAsync(pay));
      cancels.push_back(proxy().CancelOrderAsync(cancel));
    } else {
      cancels.push_back(proxy().CancelOrderAsync(cancel));
      pays.push_back(proxy().PayAsync(pay));
    }
  }
  int paid = 0;
  int cancelled = 0;
  for (int i = 0; i < kOrders; ++i) {
    auto pay = pays[i].get();
    auto cancel = cancels[i].get();
    ASSERT_TRUE(pay.ok()) << pay.status();
    ASSERT_TRUE(cancel.ok()) << cancel.status();
    const bool pay_won = pay->outcome() == PAID;
    EXPECT_NE(pay_won, cancel->cancelled()) << "order " << orders[i];
    if (pay_won) {
      ++paid;
      EXPECT_EQ(cancel->state(), "PAID");
      EXPECT_EQ(StateOf(orders[i]), OrderState::kPaid);
    } else {
      ++cancelled;
      EXPECT_EQ(pay->outcome(), REFUND_REQUIRED);
      EXPECT_EQ(cancel->state(), "CANCELLED");
      EXPECT_EQ(StateOf(orders[i]), OrderState::kCancelled);
    }
  }
  const ReconcileResponse report = Settle(proxy(), id);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.orders_paid(), paid);
  EXPECT_EQ(report.orders_cancelled(), cancelled);
  EXPECT_EQ(report.refunds_required(), cancelled);
  EXPECT_EQ(report.database_stock(), cancelled);
  std::cout << "pay vs cancel: " << paid << " paid, " << cancelled << " cancelled\n";
}

TEST_P(SeckillServiceTest, ACancelledUnitComesBackButNotToItsBuyer) {
  ASSERT_NO_FATAL_FAILURE(StartProvider());
  const int64_t id = CreateActivity(proxy(), {.stock = 1});
  ASSERT_GT(id, 0);
  ASSERT_EQ(Buy(id, "first", "first-1"), ACCEPTED);
  const int64_t order_no = WaitCreated(proxy(), id, 77, "first-1");
  ASSERT_GT(order_no, 0);
  // Sold out, and the flag is up.
  EXPECT_EQ(Buy(id, "second", "second-1"), SOLD_OUT);
  EXPECT_EQ(Buy(id, "third", "third-1"), SOLD_OUT);

  CancelOrderRequest cancel;
  cancel.set_order_no(order_no);
  auto cancelled = proxy().CancelOrder(cancel);
  ASSERT_TRUE(cancelled.ok()) << cancelled.status();
  EXPECT_TRUE(cancelled->cancelled());
  EXPECT_EQ(cancelled->state(), "CANCELLED");
  auto again = proxy().CancelOrder(cancel);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_FALSE(again->cancelled());
  EXPECT_EQ(again->state(), "CANCELLED");

  auto activity = proxy().GetActivity(Ref(id));
  ASSERT_TRUE(activity.ok()) << activity.status();
  EXPECT_EQ(activity->database_stock(), 1);
  EXPECT_EQ(activity->cache_stock(), cached() ? 1 : -1);

  // The cancelled buyer may not buy again; earlier answers stay; someone else gets the unit,
  // at once (the sold-out flag was cleared).
  EXPECT_EQ(Buy(id, "first", "first-2"), ALREADY_JOINED);
  EXPECT_EQ(Buy(id, "second", "second-1"), SOLD_OUT);
  ASSERT_EQ(Buy(id, "second", "second-2"), ACCEPTED);
  const int64_t second_order = WaitCreated(proxy(), id, 77, "second-2");
  EXPECT_NE(second_order, order_no);
  EXPECT_EQ(Buy(id, "third", "third-2"), SOLD_OUT);

  // A late payment of the cancelled order is refunded, not a second sale.
  PayRequest pay;
  pay.set_order_no(order_no);
  pay.set_channel("alipay");
  pay.set_channel_txn_id("late");
  auto paid = proxy().Pay(pay);
  ASSERT_TRUE(paid.ok()) << paid.status();
  EXPECT_EQ(paid->outcome(), REFUND_REQUIRED);
  pay.set_order_no(second_order);
  pay.set_channel_txn_id("on-time");
  paid = proxy().Pay(pay);
  ASSERT_TRUE(paid.ok()) << paid.status();
  EXPECT_EQ(paid->outcome(), PAID);
  paid = proxy().Pay(pay);
  ASSERT_TRUE(paid.ok()) << paid.status();
  EXPECT_EQ(paid->outcome(), ALREADY_PAID);
  pay.set_channel_txn_id("second-payment");
  paid = proxy().Pay(pay);
  ASSERT_TRUE(paid.ok()) << paid.status();
  EXPECT_EQ(paid->outcome(), REFUND_REQUIRED);

  const ReconcileResponse report = Settle(proxy(), id);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.orders_paid(), 1);
  EXPECT_EQ(report.orders_cancelled(), 1);
  EXPECT_EQ(report.orders_unpaid(), 0);
  EXPECT_EQ(report.refunds_required(), 2);
  EXPECT_EQ(report.database_stock(), 0);
  EXPECT_EQ(report.users_with_two_orders(), 0);
  if (cached()) {
    EXPECT_EQ(report.cache_stock(), 0);
    EXPECT_EQ(report.reservations(), 2);
  }
}

// --- payments whose result is unknown, refunds ------------------------------------------------

PayRequest Payment(int64_t order_no, const std::string& txn, PaymentReport report) {
  PayRequest pay;
  pay.set_order_no(order_no);
  pay.set_channel("alipay");
  pay.set_channel_txn_id(txn);
  pay.set_report(report);
  return pay;
}

// The channel did not answer for two payments: their orders outlive the pay timeout, which
// closes the order nobody paid, until the results arrive; the one that failed is then closed.
TEST_P(SeckillServiceTest, AnUnknownPaymentOutlivesThePayTimeoutUntilItsResultArrives) {
  ASSERT_NO_FATAL_FAILURE(StartProvider());
  const int64_t id = CreateActivity(proxy(), {.stock = 3, .pay_timeout_s = 2});
  ASSERT_GT(id, 0);
  const std::vector<int64_t> orders = PlaceOrders(proxy(), id, 3, "unknown-");
  ASSERT_EQ(orders.size(), 3u);
  const int64_t succeeds = orders[0];
  const int64_t fails = orders[1];
  for (int64_t order_no : {succeeds, fails}) {
    auto r = proxy().Pay(Payment(order_no, "q-" + std::to_string(order_no), PAYMENT_UNKNOWN));
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->outcome(), PENDING_CONFIRMATION);
  }
  // The buyer cannot cancel an order whose money may have been taken.
  CancelOrderRequest cancel;
  cancel.set_order_no(succeeds);
  auto cancelled = proxy().CancelOrder(cancel);
  ASSERT_TRUE(cancelled.ok()) << cancelled.status();
  EXPECT_FALSE(cancelled->cancelled());
  EXPECT_EQ(cancelled->state(), "CONFIRMING");

  // The closer has swept past every deadline once the unpaid order is closed.
  ReconcileResponse report =
      Settle(proxy(), id, [](const ReconcileResponse& r) { return r.orders_cancelled() == 1; });
  EXPECT_EQ(report.orders_confirming(), 2) << report.ShortDebugString();
  EXPECT_EQ(report.orders_unpaid(), 0);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(StateOf(orders[2]), OrderState::kCancelled);

  auto r = proxy().Pay(Payment(fails, "q-" + std::to_string(fails), PAYMENT_FAILED));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->outcome(), NOT_PAID);
  r = proxy().Pay(Payment(succeeds, "q-" + std::to_string(succeeds), PAYMENT_UNKNOWN));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->outcome(), PENDING_CONFIRMATION);
  r = proxy().Pay(Payment(succeeds, "q-" + std::to_string(succeeds), PAYMENT_SUCCEEDED));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->outcome(), PAID);

  // Open again and past due, the failed one is closed.
  report =
      Settle(proxy(), id, [](const ReconcileResponse& r) { return r.orders_cancelled() == 2; });
  EXPECT_EQ(report.orders_paid(), 1) << report.ShortDebugString();
  EXPECT_EQ(report.orders_confirming(), 0);
  EXPECT_EQ(report.database_stock(), 2);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(StateOf(succeeds), OrderState::kPaid);
  EXPECT_EQ(StateOf(fails), OrderState::kCancelled);

  auto bad = proxy().Pay(Payment(succeeds, "q-bad", static_cast<PaymentReport>(7)));
  EXPECT_EQ(bad.status().code(), StatusCode::INVALID_ARGUMENT) << bad.status();
  EXPECT_NE(bad.status().message().find("report"), std::string::npos) << bad.status();
}

TEST_P(SeckillServiceTest, ARefundIsRecordedOncePerPayment) {
  ASSERT_NO_FATAL_FAILURE(StartProvider());
  const int64_t id = CreateActivity(proxy(), {.stock = 2});
  ASSERT_GT(id, 0);
  const std::vector<int64_t> orders = PlaceOrders(proxy(), id, 1, "refund-");
  ASSERT_EQ(orders.size(), 1u);
  auto paid = proxy().Pay(Payment(orders[0], "first", PAYMENT_SUCCEEDED));
  ASSERT_TRUE(paid.ok()) << paid.status();
  EXPECT_EQ(paid->outcome(), PAID);
  paid = proxy().Pay(Payment(orders[0], "second", PAYMENT_SUCCEEDED));
  ASSERT_TRUE(paid.ok()) << paid.status();
  EXPECT_EQ(paid->outcome(), REFUND_REQUIRED);
  EXPECT_EQ(Settle(proxy(), id).refunds_required(), 1);

  RefundRequest refund;
  refund.set_channel("alipay");
  refund.set_channel_txn_id("second");
  refund.set_refund_id("rf-1");
  auto refunded = proxy().Refund(refund);
  ASSERT_TRUE(refunded.ok()) << refunded.status();
  EXPECT_EQ(refunded->outcome(), REFUNDED);
  refunded = proxy().Refund(refund);  // the reply was lost; the caller asks again
  ASSERT_TRUE(refunded.ok()) << refunded.status();
  EXPECT_EQ(refunded->outcome(), ALREADY_REFUNDED);
  refund.set_refund_id("rf-2");  // a second refund of the same money
  refunded = proxy().Refund(refund);
  EXPECT_EQ(refunded.status().code(), StatusCode::FAILED_PRECONDITION) << refunded.status();
  EXPECT_NE(refunded.status().message().find("rf-1"), std::string::npos) << refunded.status();
  refund.set_channel_txn_id("first");  // the payment that settled the order is owed nothing
  refunded = proxy().Refund(refund);
  EXPECT_EQ(refunded.status().code(), StatusCode::FAILED_PRECONDITION) << refunded.status();
  refund.set_channel_txn_id("never");
  refunded = proxy().Refund(refund);
  EXPECT_EQ(refunded.status().code(), StatusCode::NOT_FOUND) << refunded.status();
  refund.set_refund_id("");
  refunded = proxy().Refund(refund);
  EXPECT_EQ(refunded.status().code(), StatusCode::INVALID_ARGUMENT) << refunded.status();
  EXPECT_NE(refunded.status().message().find("refund_id"), std::string::npos);

  const ReconcileResponse report = Settle(proxy(), id);
  EXPECT_EQ(report.refunds_required(), 0) << report.ShortDebugString();
  EXPECT_EQ(report.refunds_done(), 1);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
}

}  // namespace
}  // namespace ferry::seckill
