// OrderStore payments and deadlines over both adapters (order_store_fixture.h): what a channel's
// word does to an order (once per transaction and per notification, amount checked), one
// payment under way at a time, closing only from the states and past the deadlines given, the
// confirmation wait, and payments racing closes.

#include <atomic>
#include <thread>
#include <vector>

#include "order_store_fixture.h"

namespace ferry::seckill {
namespace {

using namespace ferry::seckill::testing;

TEST_P(OrderStoreTest, APaymentPaysOnceAndASecondIsOwedBack) {
  const ActivityRecord a = NewActivity(3);
  const int64_t order_no = MustOrder(a, "ann");
  EXPECT_EQ(Pay(order_no, "txn-1", 999).effect, PaymentEffect::kPaid);
  EXPECT_EQ(StateOf(order_no), OrderState::kPaid);
  OrderRecord order;
  ASSERT_TRUE(store_->GetOrder(order_no, &order).ok());
  EXPECT_EQ(order.channel, "sim");
  EXPECT_EQ(order.channel_txn_id, "txn-1");
  // The same transaction again changes nothing; another one is money owed back.
  EXPECT_EQ(Pay(order_no, "txn-1", 999).effect, PaymentEffect::kUnchanged);
  EXPECT_EQ(Pay(order_no, "txn-2", 999).effect, PaymentEffect::kRefundOwed);
  EXPECT_EQ(Pay(order_no, "txn-2", 999).effect, PaymentEffect::kUnchanged);
  EXPECT_EQ(Pay(order_no, "txn-1", 999, "", "other").effect, PaymentEffect::kRefundOwed);
  // A transaction that paid one order does not pay another.
  const int64_t other = MustOrder(a, "bea");
  PaymentApplied applied;
  const ChannelPaymentStatus taken{.state = ChannelPaymentState::kSucceeded,
                                   .channel_txn_id = "txn-1",
                                   .amount_cents = 999,
                                   .currency = "CNY"};
  EXPECT_EQ(store_->ApplyPayment(other, "sim", taken, "", kNow, &applied).code(),
            StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(StateOf(other), OrderState::kUnpaid);
  EXPECT_EQ(store_->ApplyPayment(987654321, "sim", taken, "", kNow, &applied).code(),
            StatusCode::NOT_FOUND);
  // Words that are not money record nothing.
  for (ChannelPaymentState state : {ChannelPaymentState::kPending, ChannelPaymentState::kFailed,
                                    ChannelPaymentState::kClosed, ChannelPaymentState::kNotFound}) {
    ASSERT_TRUE(store_->ApplyPayment(other, "sim", {.state = state}, "", kNow, &applied).ok());
    EXPECT_EQ(applied.effect, PaymentEffect::kUnchanged);
  }
  const StoreCounts counts = Counts(a);
  EXPECT_EQ(counts.orders_paid, 1);
  EXPECT_EQ(counts.refunds_required, 2);
  EXPECT_EQ(counts.paid_without_payment, 0);
}

TEST_P(OrderStoreTest, AnotherAmountOrCurrencyPaysNothingAndIsOwedBack) {
  const ActivityRecord a = NewActivity(2);
  const int64_t order_no = MustOrder(a, "cy");
  EXPECT_EQ(Pay(order_no, "short", 1).effect, PaymentEffect::kAmountWrong);
  PaymentApplied applied;
  ASSERT_TRUE(store_
                  ->ApplyPayment(order_no, "sim",
                                 {.state = ChannelPaymentState::kSucceeded,
                                  .channel_txn_id = "dollars",
                                  .amount_cents = 999,
                                  .currency = "USD"},
                                 "", kNow, &applied)
                  .ok());
  EXPECT_EQ(applied.effect, PaymentEffect::kAmountWrong);
  EXPECT_EQ(StateOf(order_no), OrderState::kUnpaid);
  EXPECT_EQ(Counts(a).refunds_required, 2);
  std::vector<OwedRefund> owed;
  ASSERT_TRUE(store_->ListRefundsOwed(10, &owed).ok());
  ASSERT_EQ(owed.size(), 2u);
  EXPECT_EQ(owed[0].order_no, order_no);
  // The right amount still pays it.
  EXPECT_EQ(Pay(order_no, "right", 999).effect, PaymentEffect::kPaid);
}

TEST_P(OrderStoreTest, ANotificationIsAppliedOnceAndForgottenWhenOld) {
  const ActivityRecord a = NewActivity(2);
  const int64_t order_no = MustOrder(a, "dee");
  EXPECT_EQ(Pay(order_no, "txn-9", 999, "note-1").effect, PaymentEffect::kPaid);
  EXPECT_EQ(Pay(order_no, "txn-9", 999, "note-1").effect, PaymentEffect::kReplayed);
  // Another notification of the same transaction is no replay, and pays nothing twice.
  EXPECT_EQ(Pay(order_no, "txn-9", 999, "note-2").effect, PaymentEffect::kUnchanged);
  int64_t removed = 0;
  ASSERT_TRUE(store_->ForgetNotifications(kNow, 10, &removed).ok());
  EXPECT_EQ(removed, 0);
  ASSERT_TRUE(store_->ForgetNotifications(kNow + 1, 1, &removed).ok());
  EXPECT_EQ(removed, 1);
  ASSERT_TRUE(store_->ForgetNotifications(kNow + 1, 10, &removed).ok());
  EXPECT_EQ(removed, 1);
}

TEST_P(OrderStoreTest, OnePaymentIsUnderWayAtATime) {
  const ActivityRecord a = NewActivity(2);
  const int64_t order_no = MustOrder(a, "eli", kNow + 30'000);
  OrderRecord after;
  ASSERT_TRUE(store_->BeginPayment(order_no, "sim", "", kNow, &after).ok());
  EXPECT_EQ(after.state, OrderState::kPaying);
  EXPECT_EQ(after.channel, "sim");
  ASSERT_TRUE(store_->RecordPaymentId(order_no, "sim", "pay-1").ok());
  // Again at the same channel: the same payment.
  ASSERT_TRUE(store_->BeginPayment(order_no, "sim", "", kNow, &after).ok());
  EXPECT_EQ(after.payment_id, "pay-1");
  // Another channel only once the caller closed the first one's payment.
  ASSERT_TRUE(store_->BeginPayment(order_no, "alipay", "", kNow, &after).ok());
  EXPECT_EQ(after.channel, "sim");
  ASSERT_TRUE(store_->BeginPayment(order_no, "alipay", "sim", kNow, &after).ok());
  EXPECT_EQ(after.state, OrderState::kPaying);
  EXPECT_EQ(after.channel, "alipay");
  EXPECT_EQ(after.payment_id, "");
  // Past (or at) the deadline no payment starts.
  const int64_t late = MustOrder(a, "fin", kNow + 1000);
  ASSERT_TRUE(store_->BeginPayment(late, "sim", "", kNow + 1000, &after).ok());
  EXPECT_EQ(after.state, OrderState::kUnpaid);
  EXPECT_EQ(store_->BeginPayment(987654321, "sim", "", kNow, &after).code(), StatusCode::NOT_FOUND);
}

TEST_P(OrderStoreTest, AnOrderClosesOnlyFromTheStatesAndPastTheDeadlineGiven) {
  const ActivityRecord a = NewActivity(3);
  const int64_t unpaid = MustOrder(a, "gus", kNow + 1000);
  const int64_t paying = MustOrder(a, "hal", kNow + 1000);
  OrderRecord after;
  ASSERT_TRUE(store_->BeginPayment(paying, "sim", "", kNow, &after).ok());

  CancelResult closed;
  // Not yet due.
  ASSERT_TRUE(store_->CloseOrder(unpaid, {OrderState::kUnpaid}, kNow + 999, &closed).ok());
  EXPECT_FALSE(closed.cancelled);
  // A payment under way is not closed as unpaid.
  ASSERT_TRUE(store_->CloseOrder(paying, {OrderState::kUnpaid}, kNow + 5000, &closed).ok());
  EXPECT_FALSE(closed.cancelled);
  EXPECT_EQ(closed.state, OrderState::kPaying);
  ASSERT_TRUE(store_->CloseOrder(unpaid, {OrderState::kUnpaid}, kNow + 1000, &closed).ok());
  EXPECT_TRUE(closed.cancelled);
  ASSERT_TRUE(store_->CloseOrder(paying, {OrderState::kPaying}, 0, &closed).ok());
  EXPECT_TRUE(closed.cancelled);
  EXPECT_EQ(Remaining(a), 3);
  // Once: closed orders stay closed, paid ones are never closed.
  ASSERT_TRUE(store_->CloseOrder(paying, {OrderState::kPaying}, 0, &closed).ok());
  EXPECT_FALSE(closed.cancelled);
  const int64_t paid = MustOrder(a, "ida");
  EXPECT_EQ(Pay(paid, "t", 999).effect, PaymentEffect::kPaid);
  ASSERT_TRUE(store_
                  ->CloseOrder(paid,
                               {OrderState::kUnpaid, OrderState::kPaying, OrderState::kConfirming},
                               0, &closed)
                  .ok());
  EXPECT_FALSE(closed.cancelled);
  EXPECT_EQ(closed.state, OrderState::kPaid);
  EXPECT_EQ(Remaining(a), 2);
  std::vector<PendingCacheRelease> releases;
  ASSERT_TRUE(store_->ListPendingCacheReleases(10, &releases).ok());
  EXPECT_EQ(releases.size(), 2u);
}

TEST_P(OrderStoreTest, AnUnansweredPaymentWaitsUntilItsConfirmationDeadline) {
  const ActivityRecord a = NewActivity(2);
  const int64_t order_no = MustOrder(a, "jo", kNow + 1000);
  OrderRecord after;
  ASSERT_TRUE(store_->BeginPayment(order_no, "sim", "", kNow, &after).ok());
  std::vector<OrderRecord> due;
  ASSERT_TRUE(store_->ListDueOrders(kNow + 999, 10, &due).ok());
  EXPECT_TRUE(due.empty());
  ASSERT_TRUE(store_->ListDueOrders(kNow + 1000, 10, &due).ok());
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].state, OrderState::kPaying);

  ASSERT_TRUE(store_->AwaitConfirmation(order_no, kNow + 2000, kNow + 61'000).ok());
  ASSERT_TRUE(store_->AwaitConfirmation(order_no, kNow + 3000, kNow + 99'000).ok());
  ASSERT_TRUE(store_->GetOrder(order_no, &after).ok());
  EXPECT_EQ(after.state, OrderState::kConfirming);
  EXPECT_EQ(after.check_at_ms, kNow + 3000);
  EXPECT_EQ(after.confirm_deadline_ms, kNow + 61'000);  // the first deadline stands
  due.clear();
  ASSERT_TRUE(store_->ListDueOrders(kNow + 2999, 10, &due).ok());
  EXPECT_TRUE(due.empty());
  ASSERT_TRUE(store_->ListDueOrders(kNow + 3000, 10, &due).ok());
  EXPECT_EQ(due.size(), 1u);
  // Closed at the confirmation deadline, not at the pay deadline.
  CancelResult closed;
  ASSERT_TRUE(store_->CloseOrder(order_no, {OrderState::kConfirming}, kNow + 60'999, &closed).ok());
  EXPECT_FALSE(closed.cancelled);
  ASSERT_TRUE(store_->CloseOrder(order_no, {OrderState::kConfirming}, kNow + 61'000, &closed).ok());
  EXPECT_TRUE(closed.cancelled);
  // The money that arrives now is owed back, and the unit stays released.
  EXPECT_EQ(Pay(order_no, "late", 999).effect, PaymentEffect::kRefundOwed);
  EXPECT_EQ(Remaining(a), 2);
  // A confirmed payment of a CONFIRMING order pays it.
  const int64_t confirmed = MustOrder(a, "kim", kNow + 1000);
  ASSERT_TRUE(store_->BeginPayment(confirmed, "sim", "", kNow, &after).ok());
  ASSERT_TRUE(store_->AwaitConfirmation(confirmed, kNow + 2000, kNow + 61'000).ok());
  EXPECT_EQ(Pay(confirmed, "ok", 999).effect, PaymentEffect::kPaid);
}

TEST_P(OrderStoreTest, ARefundOfThePaymentThatPaidTheOrderClosesIt) {
  const ActivityRecord a = NewActivity(2);
  const int64_t order_no = MustOrder(a, "lee");
  EXPECT_EQ(Pay(order_no, "paid", 999).effect, PaymentEffect::kPaid);
  EXPECT_EQ(Remaining(a), 1);
  PaymentApplied applied;
  const ChannelPaymentStatus refunded{.state = ChannelPaymentState::kRefunded,
                                      .channel_txn_id = "paid",
                                      .amount_cents = 999,
                                      .currency = "CNY",
                                      .refund_id = "rf-1"};
  ASSERT_TRUE(store_->ApplyPayment(order_no, "sim", refunded, "", kNow, &applied).ok());
  EXPECT_EQ(applied.effect, PaymentEffect::kRefunded);
  EXPECT_TRUE(applied.closed);
  EXPECT_EQ(StateOf(order_no), OrderState::kCancelled);
  EXPECT_EQ(Remaining(a), 2);
  ASSERT_TRUE(store_->ApplyPayment(order_no, "sim", refunded, "", kNow, &applied).ok());
  EXPECT_EQ(applied.effect, PaymentEffect::kUnchanged);
  EXPECT_FALSE(applied.closed);
  EXPECT_EQ(Remaining(a), 2);
  const StoreCounts counts = Counts(a);
  EXPECT_EQ(counts.refunds_done, 1);
  EXPECT_EQ(counts.refunds_required, 0);
}

TEST_P(OrderStoreTest, ARefundOwedIsRecordedOnce) {
  const ActivityRecord a = NewActivity(2);
  const int64_t order_no = MustOrder(a, "max");
  EXPECT_EQ(Pay(order_no, "first", 999).effect, PaymentEffect::kPaid);
  EXPECT_EQ(Pay(order_no, "second", 999).effect, PaymentEffect::kRefundOwed);
  std::vector<OwedRefund> owed;
  ASSERT_TRUE(store_->ListRefundsOwed(10, &owed).ok());
  ASSERT_EQ(owed.size(), 1u);
  EXPECT_EQ(owed[0].channel_txn_id, "second");

  RefundResult outcome{};
  ASSERT_TRUE(store_->RecordRefund("sim", "second", "rf-2", &outcome).ok());
  EXPECT_EQ(outcome, RefundResult::kRefunded);
  ASSERT_TRUE(store_->RecordRefund("sim", "second", "rf-2", &outcome).ok());
  EXPECT_EQ(outcome, RefundResult::kAlreadyRefunded);
  EXPECT_EQ(store_->RecordRefund("sim", "second", "rf-3", &outcome).code(),
            StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(store_->RecordRefund("sim", "first", "rf-4", &outcome).code(),
            StatusCode::FAILED_PRECONDITION);  // it paid the order: no refund is owed
  EXPECT_EQ(store_->RecordRefund("sim", "never", "rf-5", &outcome).code(), StatusCode::NOT_FOUND);
  owed.clear();
  ASSERT_TRUE(store_->ListRefundsOwed(10, &owed).ok());
  EXPECT_TRUE(owed.empty());
  EXPECT_EQ(StateOf(order_no), OrderState::kPaid);
  const StoreCounts counts = Counts(a);
  EXPECT_EQ(counts.refunds_done, 1);
  EXPECT_EQ(counts.refunds_required, 0);
}

// The payment and the close of one order race: exactly one wins, and a payment that loses is
// owed back, never a sale of a released unit.
TEST_P(OrderStoreTest, APaymentRacingTheCloseNeverBothWin) {
  constexpr int kLanes = 4;
  constexpr int kOrdersPerLane = 25;
  constexpr int kOrders = kLanes * kOrdersPerLane;
  const ActivityRecord a = NewActivity(kOrders);
  std::vector<int64_t> orders;
  for (int i = 0; i < kOrders; ++i) {
    orders.push_back(MustOrder(a, "racer-" + std::to_string(i), kNow + 1000));
  }
  ASSERT_EQ(Remaining(a), 0);
  std::vector<PaymentApplied> paid(kOrders);
  std::vector<char> pay_ok(kOrders, 0);
  std::vector<CancelResult> closed(kOrders);
  std::vector<char> close_ok(kOrders, 0);
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int lane = 0; lane < kLanes; ++lane) {
    const int begin = lane * kOrdersPerLane;
    threads.emplace_back([&, begin] {
      ++ready;
      while (ready.load() < 2 * kLanes) std::this_thread::yield();
      for (int i = begin; i < begin + kOrdersPerLane; ++i) {
        const ChannelPaymentStatus taken{.state = ChannelPaymentState::kSucceeded,
                                         .channel_txn_id = "race-" + std::to_string(i),
                                         .amount_cents = 999,
                                         .currency = "CNY"};
        pay_ok[i] = store_->ApplyPayment(orders[i], "sim", taken, "", kNow, &paid[i]).ok();
      }
    });
    threads.emplace_back([&, begin] {
      ++ready;
      while (ready.load() < 2 * kLanes) std::this_thread::yield();
      for (int i = begin; i < begin + kOrdersPerLane; ++i) {
        close_ok[i] =
            store_->CloseOrder(orders[i], {OrderState::kUnpaid}, kNow + 1000, &closed[i]).ok();
      }
    });
  }
  for (auto& thread : threads) thread.join();
  int paid_count = 0;
  int closed_count = 0;
  for (int i = 0; i < kOrders; ++i) {
    ASSERT_TRUE(pay_ok[i]) << "order " << i;
    ASSERT_TRUE(close_ok[i]) << "order " << i;
    const bool pay_won = paid[i].effect == PaymentEffect::kPaid;
    EXPECT_NE(pay_won, closed[i].cancelled) << "order " << i;
    if (pay_won) {
      ++paid_count;
      EXPECT_EQ(StateOf(orders[i]), OrderState::kPaid);
    } else {
      ++closed_count;
      EXPECT_EQ(paid[i].effect, PaymentEffect::kRefundOwed);
      EXPECT_EQ(StateOf(orders[i]), OrderState::kCancelled);
    }
  }
  const StoreCounts counts = Counts(a);
  EXPECT_EQ(counts.orders_paid, paid_count);
  EXPECT_EQ(counts.orders_cancelled, closed_count);
  EXPECT_EQ(counts.refunds_required, closed_count);
  EXPECT_EQ(counts.remaining_stock, closed_count);  // each close returned its one unit
  EXPECT_EQ(counts.paid_without_payment, 0);
}

}  // namespace
}  // namespace ferry::seckill
