#include "paysim_fixture.h"

// Merchant calls: idempotent create, amounts, expiry, close, refund, and who may call.
namespace ferry::paysim::testing {
namespace {

using namespace std::chrono_literals;

TEST_F(PaysimTest, CreatingAgainWithTheSameAmountReturnsTheSamePayment) {
  auto first = Create(1001, 1999);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->payment().state(), PENDING);
  EXPECT_FALSE(first->payment().payment_id().empty());
  EXPECT_FALSE(first->payment().checkout().empty());
  auto again = Create(1001, 1999);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->payment().payment_id(), first->payment().payment_id());
  EXPECT_EQ(again->payment().checkout(), first->payment().checkout());
  auto other = Create(1002, 1999);
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_NE(other->payment().payment_id(), first->payment().payment_id());
}

TEST_F(PaysimTest, AnotherAmountForTheSameOrderIsRefused) {
  ASSERT_TRUE(Create(1101, 1999).ok());
  auto changed = Create(1101, 2999);
  ASSERT_FALSE(changed.ok());
  EXPECT_EQ(changed.status().code(), StatusCode::FAILED_PRECONDITION) << changed.status();
}

TEST_F(PaysimTest, CallsNotSignedWithTheMerchantsKeyAreUnauthenticated) {
  PaymentRef body;
  body.set_order_no(1201);
  auto forged = proxy().QueryPayment(Call("QueryPayment", body, "another-key-0123456789"));
  ASSERT_FALSE(forged.ok());
  EXPECT_EQ(forged.status().code(), StatusCode::UNAUTHENTICATED) << forged.status();
  // Signed for another method: a captured query cannot close.
  auto moved = proxy().ClosePayment(Call("QueryPayment", body));
  ASSERT_FALSE(moved.ok());
  EXPECT_EQ(moved.status().code(), StatusCode::UNAUTHENTICATED) << moved.status();
  auto stale = proxy().QueryPayment(Call("QueryPayment", body, kKey, NowMs() - 3600000));
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.status().code(), StatusCode::UNAUTHENTICATED) << stale.status();
  MerchantCall unknown = Call("QueryPayment", body);
  unknown.set_merchant_id("nobody");
  auto stranger = proxy().QueryPayment(unknown);
  ASSERT_FALSE(stranger.ok());
  EXPECT_EQ(stranger.status().code(), StatusCode::UNAUTHENTICATED) << stranger.status();
}

TEST_F(PaysimTest, APaymentPastItsExpiryIsClosedAndCannotBePaid) {
  auto created = Create(1301, 500, 300);
  ASSERT_TRUE(created.ok()) << created.status();
  const std::string checkout = created->payment().checkout();
  EXPECT_TRUE(testsupport::Eventually([&] {
    auto q = Query(1301);
    return q.ok() && q->payment().state() == CLOSED;
  }));
  auto paid = Pay(checkout);
  ASSERT_FALSE(paid.ok());
  EXPECT_EQ(paid.status().code(), StatusCode::FAILED_PRECONDITION) << paid.status();
  EXPECT_TRUE(merchant_.received().empty());
}

TEST_F(PaysimTest, ClosingAPaidPaymentLeavesItPaid) {
  auto created = Create(1401, 700);
  ASSERT_TRUE(created.ok()) << created.status();
  auto paid = Pay(created->payment().checkout());
  ASSERT_TRUE(paid.ok()) << paid.status();
  EXPECT_EQ(paid->state(), SUCCEEDED);
  auto closed = Close(1401);
  ASSERT_TRUE(closed.ok()) << closed.status();
  EXPECT_EQ(closed->payment().state(), SUCCEEDED);
  EXPECT_EQ(closed->payment().channel_txn_id(), paid->channel_txn_id());
  EXPECT_EQ(closed->payment().amount_cents(), 700);
  // Paying again answers the same transaction and takes nothing more.
  auto twice = Pay(created->payment().checkout());
  ASSERT_TRUE(twice.ok()) << twice.status();
  EXPECT_EQ(twice->channel_txn_id(), paid->channel_txn_id());
}

TEST_F(PaysimTest, AnOpenPaymentClosesAndAnOrderClosedBeforeItsCreateStaysClosed) {
  auto created = Create(1501, 800);
  ASSERT_TRUE(created.ok()) << created.status();
  auto failed = Pay(created->payment().checkout(), FAIL);
  ASSERT_TRUE(failed.ok()) << failed.status();
  EXPECT_EQ(failed->state(), FAILED);
  auto closed = Close(1501);
  ASSERT_TRUE(closed.ok()) << closed.status();
  EXPECT_EQ(closed->payment().state(), CLOSED);
  EXPECT_FALSE(Pay(created->payment().checkout()).ok());

  auto never = Close(1502);
  ASSERT_TRUE(never.ok()) << never.status();
  EXPECT_EQ(never->payment().state(), NOT_FOUND);
  auto late = Create(1502, 800);
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.status().code(), StatusCode::FAILED_PRECONDITION) << late.status();
}

TEST_F(PaysimTest, ARefundIsMadeOncePerRefundId) {
  auto created = Create(1601, 900);
  ASSERT_TRUE(created.ok()) << created.status();
  auto unpaid = Refund(1601, "", "r-1");
  ASSERT_TRUE(unpaid.ok()) << unpaid.status();
  EXPECT_EQ(unpaid->payment().state(), PENDING);
  auto paid = Pay(created->payment().checkout());
  ASSERT_TRUE(paid.ok()) << paid.status();
  auto wrong = Refund(1601, "T-not-it", "r-1");
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().code(), StatusCode::FAILED_PRECONDITION) << wrong.status();
  auto refunded = Refund(1601, paid->channel_txn_id(), "r-1");
  ASSERT_TRUE(refunded.ok()) << refunded.status();
  EXPECT_EQ(refunded->payment().state(), REFUNDED);
  EXPECT_EQ(refunded->payment().refund_id(), "r-1");
  auto again = Refund(1601, paid->channel_txn_id(), "r-1");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->payment().state(), REFUNDED);
  // A full refund is made once: another refund id finds it refunded under the first.
  auto other = Refund(1601, paid->channel_txn_id(), "r-2");
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_EQ(other->payment().refund_id(), "r-1");
  // One notification of the payment, one of the refund.
  auto sent = WaitNotifications(1601, [](const ListNotificationsResponse& r) {
    return r.notifications_size() == 2 && r.notifications(1).state() == "DELIVERED";
  });
  ASSERT_EQ(sent.notifications_size(), 2);
  NotificationPayload refund;
  ASSERT_TRUE(refund.ParseFromString(sent.notifications(1).payload()));
  EXPECT_EQ(refund.state(), REFUNDED);
  EXPECT_EQ(refund.refund_id(), "r-1");
}

TEST_F(PaysimTest, WhileUnavailableMerchantCallsFailAndNotificationsWait) {
  auto created = Create(1701, 1000);
  ASSERT_TRUE(created.ok()) << created.status();
  SetFaultsRequest down;
  down.set_unavailable(true);
  ASSERT_TRUE(proxy().SetFaults(down).ok());
  auto query = Query(1701);
  ASSERT_FALSE(query.ok());
  EXPECT_EQ(query.status().code(), StatusCode::UNAVAILABLE) << query.status();
  // The buyer still pays; the merchant hears of it once the channel is back.
  auto paid = Pay(created->payment().checkout());
  ASSERT_TRUE(paid.ok()) << paid.status();
  auto held = WaitNotifications(
      1701, [](const ListNotificationsResponse& r) { return r.notifications_size() == 1; });
  ASSERT_EQ(held.notifications_size(), 1);
  EXPECT_EQ(held.notifications(0).attempts(), 0);
  EXPECT_TRUE(merchant_.received().empty());
  SetFaultsRequest up;
  ASSERT_TRUE(proxy().SetFaults(up).ok());
  WaitNotifications(1701, [](const ListNotificationsResponse& r) {
    return r.notifications_size() == 1 && r.notifications(0).state() == "DELIVERED";
  });
  auto after = Query(1701);
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(after->payment().state(), SUCCEEDED);
}

}  // namespace
}  // namespace ferry::paysim::testing
