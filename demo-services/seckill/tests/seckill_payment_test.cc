#include <google/protobuf/descriptor.h>
#include <yaml-cpp/yaml.h>

#include "ferry/paysim/signature.h"
#include "seckill_payment_fixture.h"

// Payments settled by the simulated channel, never by the buyer: notifications signed with the
// merchant's key, replays and wrong amounts refused, pay timeouts that close at the channel
// first, an unreachable channel, and money that arrives after the order closed.
namespace ferry::seckill::testing {
namespace {

using namespace std::chrono_literals;

// Stock 1 at `price` with a 2 s pay timeout.
ActivitySpec OneUnit(int64_t price = 1999) {
  return ActivitySpec{.stock = 1, .price_cents = price, .pay_timeout_s = 2};
}

TEST_P(SeckillPaymentTest, ABuyerCannotMakeTheirOrderPaid) {
  ASSERT_NO_FATAL_FAILURE(StartWithPayments());
  const int64_t activity = CreateActivity(proxy(), ActivitySpec{.stock = 3});
  const int64_t order_no = OrderOf(activity, "buyer-a");
  ASSERT_GT(order_no, 0);
  const auto* service = google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
      "ferry.seckill.SeckillService");
  ASSERT_NE(service, nullptr);
  EXPECT_EQ(service->FindMethodByName("Pay"), nullptr);
  StartPaying(order_no);

  // What a buyer could send: the channel's notification of their own order, well formed,
  // signed with a key that is not the merchant's.
  paysim::NotificationPayload payload;
  payload.set_notification_id("N-buyer-made");
  payload.set_order_no(order_no);
  payload.set_sent_at_ms(WallMs());
  payload.set_state(paysim::SUCCEEDED);
  payload.set_channel_txn_id("T-buyer-made");
  payload.set_amount_cents(1999);
  payload.set_currency("CNY");
  ChannelNotification forged;
  forged.set_channel("sim");
  forged.set_payload(payload.SerializeAsString());
  forged.set_signature(paysim::HexHmacSha256("the-buyers-own-key-0123", forged.payload()));
  const uint64_t refused = Notifications("refused_signature");
  auto notified = proxy().NotifyPayment(forged);
  ASSERT_FALSE(notified.ok());
  EXPECT_EQ(notified.status().code(), StatusCode::UNAUTHENTICATED) << notified.status();
  EXPECT_EQ(Notifications("refused_signature"), refused + 1);
  forged.set_signature("");
  EXPECT_EQ(proxy().NotifyPayment(forged).status().code(), StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(Order(order_no).state(), "PAYING");
  EXPECT_EQ(AtChannel(order_no).state(), paysim::PENDING);
}

TEST_P(SeckillPaymentTest, PayingAtTheChannelPaysTheOrderWithItsAmount) {
  ASSERT_NO_FATAL_FAILURE(StartWithPayments());
  const int64_t activity = CreateActivity(proxy(), ActivitySpec{.stock = 3, .price_cents = 4321});
  const int64_t order_no = OrderOf(activity, "buyer-b");
  ASSERT_GT(order_no, 0);
  const PaymentIntent intent = StartPaying(order_no);
  EXPECT_EQ(intent.amount_cents(), 4321);
  EXPECT_EQ(intent.currency(), "CNY");
  EXPECT_EQ(intent.channel(), "sim");
  EXPECT_FALSE(intent.checkout().empty());
  // StartPayment again: the same payment at the channel.
  EXPECT_EQ(StartPaying(order_no).payment_id(), intent.payment_id());

  paysim::CheckoutRequest pay;
  pay.set_checkout(intent.checkout());
  pay.set_outcome(paysim::PAY);
  auto paid = paysim().Checkout(pay);
  ASSERT_TRUE(paid.ok()) << paid.status();
  ASSERT_TRUE(WaitState(order_no, "PAID"));
  const OrderView order = Order(order_no);
  EXPECT_EQ(order.amount_cents(), 4321);
  EXPECT_EQ(order.channel(), "sim");
  EXPECT_EQ(order.channel_txn_id(), paid->channel_txn_id());
  const ReconcileResponse report = Settle(proxy(), activity);
  EXPECT_EQ(report.orders_paid(), 1);
  EXPECT_EQ(report.paid_without_payment(), 0);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
}

TEST_P(SeckillPaymentTest, AReplayedNotificationIsRefusedAndChangesNothing) {
  ASSERT_NO_FATAL_FAILURE(StartWithPayments());
  const int64_t activity = CreateActivity(proxy(), ActivitySpec{.stock = 3});
  const int64_t order_no = OrderOf(activity, "buyer-c");
  ASSERT_GT(order_no, 0);
  paysim::CheckoutRequest pay;
  pay.set_checkout(StartPaying(order_no).checkout());
  pay.set_outcome(paysim::PAY);
  ASSERT_TRUE(paysim().Checkout(pay).ok());
  ASSERT_TRUE(WaitState(order_no, "PAID"));
  const auto first = Deliveries(order_no, [](const paysim::ListNotificationsResponse& r) {
    return r.notifications_size() == 1 && r.notifications(0).state() == "DELIVERED";
  });
  ASSERT_EQ(first.notifications_size(), 1);
  const std::string txn = Order(order_no).channel_txn_id();

  const uint64_t replays = Notifications("refused_replayed");
  paysim::ReplayNotificationRequest replay;
  replay.set_notification_id(first.notifications(0).notification_id());
  ASSERT_TRUE(paysim().ReplayNotification(replay).ok());
  // The provider answers ALREADY_EXISTS, which tells the channel it has it: delivered.
  const auto both = Deliveries(order_no, [](const paysim::ListNotificationsResponse& r) {
    return r.notifications_size() == 2 && r.notifications(1).state() == "DELIVERED";
  });
  ASSERT_EQ(both.notifications_size(), 2);
  EXPECT_EQ(both.notifications(1).payload(), first.notifications(0).payload());
  EXPECT_NE(both.notifications(1).last_error().find("ALREADY_EXISTS"), std::string::npos)
      << both.notifications(1).ShortDebugString();
  EXPECT_EQ(Notifications("refused_replayed"), replays + 1);
  const OrderView order = Order(order_no);
  EXPECT_EQ(order.state(), "PAID");
  EXPECT_EQ(order.channel_txn_id(), txn);
  const ReconcileResponse report = Settle(proxy(), activity);
  EXPECT_EQ(report.orders_paid(), 1);
  EXPECT_EQ(report.refunds_required(), 0);
}

TEST_P(SeckillPaymentTest, ACorrectlySignedWrongAmountIsRefusedAndCounted) {
  ASSERT_NO_FATAL_FAILURE(StartWithPayments());
  const int64_t activity = CreateActivity(proxy(), ActivitySpec{.stock = 3, .price_cents = 1999});
  const int64_t order_no = OrderOf(activity, "buyer-d");
  ASSERT_GT(order_no, 0);
  StartPaying(order_no);
  const uint64_t wrong = Notifications("refused_amount");
  paysim::SendForgedAmountRequest forge;
  forge.set_merchant_id(kSimMerchant);
  forge.set_order_no(order_no);
  forge.set_amount_cents(1);
  ASSERT_TRUE(paysim().SendForgedAmount(forge).ok());
  // Refused on every attempt (FAILED_PRECONDITION), until the channel gives up.
  const auto sent = Deliveries(order_no, [](const paysim::ListNotificationsResponse& r) {
    return r.notifications_size() == 1 && r.notifications(0).state() == "GAVE_UP";
  });
  ASSERT_EQ(sent.notifications_size(), 1);
  EXPECT_NE(sent.notifications(0).last_error().find("FAILED_PRECONDITION"), std::string::npos)
      << sent.notifications(0).ShortDebugString();
  EXPECT_EQ(Notifications("refused_amount"), wrong + sent.notifications(0).attempts());
  EXPECT_EQ(Order(order_no).state(), "PAYING");
  auto report = proxy().Reconcile(Ref(activity));
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_GE(report->notifications_refused(), 1);
  EXPECT_EQ(report->orders_paid(), 0);
}

TEST_P(SeckillPaymentTest, ASilentBuyersUnitGoesToTheNextBuyerAfterThePayTimeout) {
  const int64_t confirm_window_ms = 1500;
  ASSERT_NO_FATAL_FAILURE(StartWithPayments(confirm_window_ms));
  const int64_t activity = CreateActivity(proxy(), OneUnit());
  const int64_t first = OrderOf(activity, "silent-1");
  ASSERT_GT(first, 0);
  StartPaying(first);
  const auto started = std::chrono::steady_clock::now();
  int attempt = 0;
  std::string accepted;
  const bool sold = Eventually(
      [&] {
        const std::string request = "next-" + std::to_string(attempt++);
        if (Buy(activity, "next-2", request) != ACCEPTED) return false;
        accepted = request;
        return true;
      },
      2000ms + std::chrono::milliseconds(confirm_window_ms) + 5000ms, 50ms);
  ASSERT_TRUE(sold) << "the second buyer was never accepted";
  EXPECT_LT(std::chrono::steady_clock::now() - started,
            2000ms + std::chrono::milliseconds(confirm_window_ms) + 1000ms);
  EXPECT_GT(WaitCreated(proxy(), activity, 77, accepted), 0);
  EXPECT_EQ(Order(first).state(), "CANCELLED");
  EXPECT_EQ(AtChannel(first).state(), paysim::CLOSED);
  const ReconcileResponse report = Settle(proxy(), activity);
  EXPECT_EQ(report.orders_cancelled(), 1);
  EXPECT_EQ(report.database_stock(), 0);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
}

TEST_P(SeckillPaymentTest, AnUnreachableChannelKeepsTheOrderConfirmingThenClosesItOnce) {
  ASSERT_NO_FATAL_FAILURE(StartWithPayments(1500));
  const int64_t activity = CreateActivity(proxy(), OneUnit());
  const int64_t order_no = OrderOf(activity, "unreached");
  ASSERT_GT(order_no, 0);
  StartPaying(order_no);
  ASSERT_NO_FATAL_FAILURE(SetChannelDown(true));
  ASSERT_TRUE(WaitState(order_no, "CONFIRMING"));
  // Held meanwhile: the money may have been taken.
  EXPECT_EQ(StocksOf(activity).first, 0);
  ASSERT_TRUE(WaitState(order_no, "CANCELLED"));
  const ReconcileResponse report = Settle(proxy(), activity, [&](const ReconcileResponse& r) {
    return !cached() || r.cache_stock() == 1;
  });
  EXPECT_EQ(report.database_stock(), 1);
  EXPECT_EQ(report.orders_cancelled(), 1);
  EXPECT_EQ(report.orders_confirming(), 0);
  if (cached()) {
    EXPECT_EQ(report.cache_stock(), 1);
  }
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  ASSERT_NO_FATAL_FAILURE(SetChannelDown(false));
  // The unit was released once: one more buyer gets it, the next does not.
  EXPECT_EQ(Buy(activity, "after-1", "after-1"), ACCEPTED);
  EXPECT_EQ(Buy(activity, "after-2", "after-2"), SOLD_OUT);
}

// A channel that answers the close with a refusal rather than an outage (the merchant key was
// changed on one side, say) cannot say what became of the payment either: the order waits as
// CONFIRMING, asked again every retry_ms, and closes at its confirmation deadline.
TEST_P(SeckillPaymentTest, AChannelRefusingTheCloseKeepsTheOrderConfirmingThenClosesIt) {
  ASSERT_NO_FATAL_FAILURE(StartWithPayments(1500));
  const int64_t activity = CreateActivity(proxy(), OneUnit());
  const int64_t order_no = OrderOf(activity, "refused");
  ASSERT_GT(order_no, 0);
  StartPaying(order_no);
  provider_.Stop();
  ASSERT_NO_FATAL_FAILURE(StartWithPayments(1500, "another-key-0123456789abcdef"));
  ASSERT_TRUE(WaitState(order_no, "CONFIRMING"));
  ASSERT_TRUE(WaitState(order_no, "CANCELLED"));
  const ReconcileResponse report = Settle(proxy(), activity, [&](const ReconcileResponse& r) {
    return !cached() || r.cache_stock() == 1;
  });
  EXPECT_EQ(report.database_stock(), 1);
  EXPECT_EQ(report.orders_confirming(), 0);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
}

TEST_P(SeckillPaymentTest, MoneyTakenAfterTheLocalCloseIsOwedBackAndRefunded) {
  ASSERT_NO_FATAL_FAILURE(StartWithPayments(1500));
  const int64_t activity = CreateActivity(proxy(), OneUnit());
  const int64_t order_no = OrderOf(activity, "late-payer");
  ASSERT_GT(order_no, 0);
  const PaymentIntent intent = StartPaying(order_no);
  ASSERT_NO_FATAL_FAILURE(SetChannelDown(true));
  // The buyer pays while the channel cannot tell the provider, which closes the order at its
  // confirmation deadline.
  paysim::CheckoutRequest pay;
  pay.set_checkout(intent.checkout());
  pay.set_outcome(paysim::PAY);
  auto paid = paysim().Checkout(pay);
  ASSERT_TRUE(paid.ok()) << paid.status();
  ASSERT_TRUE(WaitState(order_no, "CANCELLED"));
  const uint64_t owed = Notifications("refund_owed");
  ASSERT_NO_FATAL_FAILURE(SetChannelDown(false));
  // Recorded as owed back when the notification arrives, then refunded at the channel.
  Deliveries(order_no, [](const paysim::ListNotificationsResponse& r) {
    return r.notifications_size() >= 1 && r.notifications(0).state() == "DELIVERED";
  });
  EXPECT_EQ(Notifications("refund_owed"), owed + 1);
  const ReconcileResponse report = Settle(proxy(), activity, [](const ReconcileResponse& r) {
    return r.refunds_done() == 1 && r.refunds_required() == 0;
  });
  EXPECT_EQ(report.refunds_done(), 1);
  EXPECT_EQ(report.orders_paid(), 0);
  EXPECT_EQ(report.orders_cancelled(), 1);
  EXPECT_EQ(report.database_stock(), 1);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  const paysim::Payment at_channel = AtChannel(order_no);
  EXPECT_EQ(at_channel.state(), paysim::REFUNDED);
  EXPECT_EQ(at_channel.channel_txn_id(), paid->channel_txn_id());
  EXPECT_EQ(Order(order_no).state(), "CANCELLED");
}

Status ReadPayments(const YAML::Node& payments, std::vector<PaymentChannelFactory>* channels) {
  config::ConfigErrors errors("seckill.yaml");
  config::ConfigReader reader(payments, "service.payments", &errors);
  PaymentOptions options;
  ReadPaymentConfig(reader, &options, channels);
  return errors.first();
}

TEST(SimulatedChannelConfigTest, MistakesNameKeyAndLine) {
  struct Mistake {
    const char* keys;      // after `kind: simulated`
    const char* expected;  // in the error
  };
  const Mistake mistakes[] = {
      {"    address: nowhere\n    key: long-enough-key-0123456789\n",
       "seckill.yaml:4: service.payments.channels.sim.address"},
      {"    address: 127.0.0.1:7301\n    key: short\n",
       "seckill.yaml:5: service.payments.channels.sim.key"},
      {"    address: 127.0.0.1:7301\n    key_file: /nonexistent/key\n",
       "service.payments.channels.sim.key_file: cannot read"},
      {"    address: 127.0.0.1:7301\n    key: long-enough-key-0123456789\n    timeout: 5\n",
       "service.payments.channels.sim.timeout"},
  };
  for (const Mistake& m : mistakes) {
    std::vector<PaymentChannelFactory> channels;
    const Status s = ReadPayments(
        YAML::Load(std::string("channels:\n  sim:\n    kind: simulated\n") + m.keys), &channels);
    EXPECT_NE(s.message().find(m.expected), std::string::npos) << m.expected << ": " << s;
  }
}

TEST(SimulatedChannelConfigTest, TheShippedConfigsNameTheSimulatedChannel) {
  for (const char* file : {"seckill-server.yaml", "seckill-server-redis.yaml"}) {
    SCOPED_TRACE(file);
    const YAML::Node root = YAML::LoadFile(std::string(SECKILL_CONFIG_DIR "/") + file);
    std::vector<PaymentChannelFactory> channels;
    Status s = ReadPayments(root["service"]["payments"], &channels);
    ASSERT_TRUE(s.ok()) << s;
    ASSERT_EQ(channels.size(), 1u);
    EXPECT_EQ(channels[0].name, "sim");
    std::unique_ptr<PaymentChannel> channel;
    ASSERT_TRUE(channels[0].make(&channel).ok());
    EXPECT_EQ(channel->name(), "sim");
    // The channel's notifications reach NotifyPayment without a buyer's token.
    bool exempt = false;
    for (const YAML::Node& filter : root["server"]["filters"]) {
      if (filter["name"].as<std::string>() != "user_token") continue;
      for (const YAML::Node& method : filter["exempt"]) {
        exempt |= method.as<std::string>() == "ferry.seckill.SeckillService/NotifyPayment";
      }
    }
    EXPECT_TRUE(exempt);
  }
}

}  // namespace
}  // namespace ferry::seckill::testing
