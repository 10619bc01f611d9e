#include "ferry/paysim/signature.h"
#include "paysim_fixture.h"

// Notifications: signed, re-sent until the merchant acknowledges them, replayed byte for byte,
// and forged amounts correctly signed.
namespace ferry::paysim::testing {
namespace {

using namespace std::chrono_literals;

TEST_F(PaysimTest, APaymentIsNotifiedSignedAndResentUntilAcknowledged) {
  merchant_.RefuseNext(2);
  auto created = Create(2001, 1999);
  ASSERT_TRUE(created.ok()) << created.status();
  auto paid = Pay(created->payment().checkout());
  ASSERT_TRUE(paid.ok()) << paid.status();
  auto sent = WaitNotifications(2001, [](const ListNotificationsResponse& r) {
    return r.notifications_size() == 1 && r.notifications(0).state() == "DELIVERED";
  });
  ASSERT_EQ(sent.notifications_size(), 1);
  EXPECT_EQ(sent.notifications(0).attempts(), 3);
  const std::vector<Received> received = merchant_.received();
  ASSERT_EQ(received.size(), 3u);
  for (const Received& r : received) {
    EXPECT_EQ(r.channel, "sim");
    EXPECT_EQ(r.payload, received[0].payload);
    EXPECT_EQ(r.signature, received[0].signature);
  }
  EXPECT_EQ(received[0].signature, HexHmacSha256(kKey, received[0].payload));
  EXPECT_EQ(received[0].signature.size(), 64u);
  NotificationPayload payload;
  ASSERT_TRUE(payload.ParseFromString(received[0].payload));
  EXPECT_EQ(payload.order_no(), 2001);
  EXPECT_EQ(payload.state(), SUCCEEDED);
  EXPECT_EQ(payload.amount_cents(), 1999);
  EXPECT_EQ(payload.currency(), "CNY");
  EXPECT_EQ(payload.channel_txn_id(), paid->channel_txn_id());
  EXPECT_FALSE(payload.notification_id().empty());
  EXPECT_NEAR(static_cast<double>(payload.sent_at_ms()), static_cast<double>(NowMs()), 10000.0);
}

TEST_F(PaysimTest, AMerchantThatNeverAnswersIsGivenUpOnAfterTheAttempts) {
  merchant_.RefuseNext(100);
  auto created = Create(2101, 100);
  ASSERT_TRUE(created.ok()) << created.status();
  ASSERT_TRUE(Pay(created->payment().checkout()).ok());
  auto sent = WaitNotifications(2101, [](const ListNotificationsResponse& r) {
    return r.notifications_size() == 1 && r.notifications(0).state() == "GAVE_UP";
  });
  ASSERT_EQ(sent.notifications_size(), 1);
  EXPECT_EQ(sent.notifications(0).attempts(), config_.delivery.max_attempts);
  EXPECT_EQ(merchant_.received().size(), static_cast<size_t>(config_.delivery.max_attempts));
}

TEST_F(PaysimTest, AReplaySendsTheSameBytesAgain) {
  auto created = Create(2201, 300);
  ASSERT_TRUE(created.ok()) << created.status();
  ASSERT_TRUE(Pay(created->payment().checkout()).ok());
  auto first = WaitNotifications(2201, [](const ListNotificationsResponse& r) {
    return r.notifications_size() == 1 && r.notifications(0).state() == "DELIVERED";
  });
  ASSERT_EQ(first.notifications_size(), 1);
  ReplayNotificationRequest replay;
  replay.set_notification_id(first.notifications(0).notification_id());
  auto replayed = proxy().ReplayNotification(replay);
  ASSERT_TRUE(replayed.ok()) << replayed.status();
  WaitNotifications(2201, [](const ListNotificationsResponse& r) {
    return r.notifications_size() == 2 && r.notifications(1).state() == "DELIVERED";
  });
  const std::vector<Received> received = merchant_.received();
  ASSERT_EQ(received.size(), 2u);
  EXPECT_EQ(received[1].payload, received[0].payload);
  EXPECT_EQ(received[1].signature, received[0].signature);

  replay.set_notification_id("N-never-sent");
  auto unknown = proxy().ReplayNotification(replay);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), StatusCode::NOT_FOUND) << unknown.status();
}

TEST_F(PaysimTest, AForgedAmountIsCorrectlySignedWithTheWrongAmount) {
  auto created = Create(2301, 1999);
  ASSERT_TRUE(created.ok()) << created.status();
  SendForgedAmountRequest forge;
  forge.set_merchant_id(kMerchant);
  forge.set_order_no(2301);
  forge.set_amount_cents(1);
  auto forged = proxy().SendForgedAmount(forge);
  ASSERT_TRUE(forged.ok()) << forged.status();
  WaitNotifications(2301, [](const ListNotificationsResponse& r) {
    return r.notifications_size() == 1 && r.notifications(0).state() == "DELIVERED";
  });
  const std::vector<Received> received = merchant_.received();
  ASSERT_EQ(received.size(), 1u);
  EXPECT_TRUE(SignatureMatches(kKey, received[0].payload, received[0].signature));
  NotificationPayload payload;
  ASSERT_TRUE(payload.ParseFromString(received[0].payload));
  EXPECT_EQ(payload.notification_id(), forged->notification_id());
  EXPECT_EQ(payload.state(), SUCCEEDED);
  EXPECT_EQ(payload.amount_cents(), 1);
  // The channel's own record is untouched.
  auto query = Query(2301);
  ASSERT_TRUE(query.ok()) << query.status();
  EXPECT_EQ(query->payment().state(), PENDING);
}

}  // namespace
}  // namespace ferry::paysim::testing
