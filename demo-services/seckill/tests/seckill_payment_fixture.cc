#include "seckill_payment_fixture.h"

#include <yaml-cpp/yaml.h>

#include <sstream>

#include "ferry/paysim/merchant_call.h"
#include "service/seckill_metrics.h"

namespace ferry::seckill::testing {

using namespace std::chrono_literals;

void SeckillPaymentTest::SetUp() {
  ASSERT_NO_FATAL_FAILURE(SeckillServiceTest::SetUp());
  paysim::PaysimConfig config;
  config.storage_path = ":memory:";
  config.delivery = {.max_attempts = 4,
                     .initial_backoff_ms = 20,
                     .max_backoff_ms = 200,
                     .timeout_ms = 3000,
                     .poll_ms = 10};
  config.merchants[kSimMerchant] = paysim::Merchant{.id = kSimMerchant,
                                                    .key = kSimKey,
                                                    .channel = "sim",
                                                    .notify_address = "",
                                                    .notify_client = ""};
  // The provider starts after the channel (it is configured with the channel's address), so
  // the channel reaches it on its first notification.
  auto to_provider = [this](const paysim::Merchant&) {
    return testsupport::LoopbackChannel(provider_.port(), testsupport::LoopbackClientOptions(3s));
  };
  std::unique_ptr<paysim::PaysimApp> app;
  Status s = paysim::PaysimApp::Create(config, to_provider, &app);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_NO_FATAL_FAILURE(
      paysim_.Serve(std::move(app), {}, testsupport::LoopbackClientOptions(5s)));
}

void SeckillPaymentTest::TearDown() {
  // The channel first: nothing it still sends reaches a provider that is stopping.
  paysim_.Stop();
  SeckillServiceTest::TearDown();
}

void SeckillPaymentTest::StartWithPayments(int64_t confirm_window_ms, const std::string& key) {
  std::ostringstream yaml;
  yaml << "currency: CNY\nconfirm_window_ms: " << confirm_window_ms << "\nretry_ms: 100\n"
       << "channels:\n  sim:\n    kind: simulated\n"
       << "    address: 127.0.0.1:" << paysim_.port() << "\n"
       << "    merchant_id: " << kSimMerchant << "\n    key: " << key << "\n"
       << "    timeout_ms: 500\n";
  config::ConfigErrors errors("seckill-test.yaml");
  config::ConfigReader payments(YAML::Load(yaml.str()), "service.payments", &errors);
  config_.payment_channels.clear();
  ReadPaymentConfig(payments, &config_.payments, &config_.payment_channels);
  ASSERT_TRUE(errors.first().ok()) << errors.first();
  ASSERT_EQ(config_.payment_channels.size(), 1u);
  ASSERT_NO_FATAL_FAILURE(StartProvider());
}

int64_t SeckillPaymentTest::OrderOf(int64_t activity, const std::string& user) {
  const std::string request = "pay-" + user + "-" + std::to_string(activity);
  EXPECT_EQ(Buy(activity, user, request), ACCEPTED);
  return WaitCreated(proxy(), activity, 77, request);
}

PaymentIntent SeckillPaymentTest::StartPaying(int64_t order_no) {
  StartPaymentRequest request;
  request.set_order_no(order_no);
  request.set_channel("sim");
  auto started = proxy().StartPayment(request);
  EXPECT_TRUE(started.ok()) << started.status();
  return started.ok() ? started->intent() : PaymentIntent();
}

OrderView SeckillPaymentTest::Order(int64_t order_no) {
  GetOrderRequest request;
  request.set_order_no(order_no);
  auto order = proxy().GetOrder(request);
  EXPECT_TRUE(order.ok()) << order.status();
  return order.ok() ? *order : OrderView();
}

bool SeckillPaymentTest::WaitState(int64_t order_no, const std::string& state,
                                   std::chrono::milliseconds timeout) {
  OrderView last;
  const bool reached = Eventually(
      [&] {
        last = Order(order_no);
        return last.state() == state;
      },
      timeout);
  EXPECT_TRUE(reached) << "order " << order_no << " is not " << state << ": "
                       << last.ShortDebugString();
  return reached;
}

paysim::Payment SeckillPaymentTest::AtChannel(int64_t order_no) {
  paysim::PaymentRef body;
  body.set_order_no(order_no);
  auto answer = paysim().QueryPayment(
      paysim::SignMerchantCall("QueryPayment", kSimMerchant, kSimKey, WallMs(), body));
  EXPECT_TRUE(answer.ok()) << answer.status();
  return answer.ok() ? answer->payment() : paysim::Payment();
}

paysim::ListNotificationsResponse SeckillPaymentTest::Deliveries(
    int64_t order_no, const std::function<bool(const paysim::ListNotificationsResponse&)>& done) {
  paysim::ListNotificationsRequest request;
  request.set_merchant_id(kSimMerchant);
  request.set_order_no(order_no);
  paysim::ListNotificationsResponse last;
  const bool reached = Eventually([&] {
    auto listed = paysim().ListNotifications(request);
    if (!listed.ok()) return false;
    last = *listed;
    return done(last);
  });
  EXPECT_TRUE(reached) << last.ShortDebugString();
  return last;
}

void SeckillPaymentTest::SetChannelDown(bool down) {
  paysim::SetFaultsRequest request;
  request.set_unavailable(down);
  auto set = paysim().SetFaults(request);
  ASSERT_TRUE(set.ok()) << set.status();
}

uint64_t SeckillPaymentTest::Notifications(const std::string& outcome) {
  auto cell = Metrics().notifications->WithLabels({outcome});
  return cell.ok() ? cell.value()->Value() : 0;
}

namespace {

std::string BackendName(const ::testing::TestParamInfo<Backend>& info) {
  return info.param == Backend::kEmbedded ? "embedded" : "redis_mariadb";
}

}  // namespace

INSTANTIATE_TEST_SUITE_P(Backends, SeckillPaymentTest,
                         ::testing::Values(Backend::kEmbedded, Backend::kRedisMariaDb),
                         BackendName);

}  // namespace ferry::seckill::testing
