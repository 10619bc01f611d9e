#include "paysim_fixture.h"

namespace ferry::paysim::testing {

using namespace std::chrono_literals;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void PaysimTest::SetUp() {
  Service* merchant = &merchant_;
  ASSERT_NO_FATAL_FAILURE(merchant_server_.Start({.services = {&merchant, 1}}));
  config_.storage_path = ":memory:";
  config_.delivery.initial_backoff_ms = 20;
  config_.delivery.max_backoff_ms = 100;
  config_.delivery.max_attempts = 5;
  config_.delivery.timeout_ms = 2000;
  config_.delivery.poll_ms = 10;
  config_.merchants[kMerchant] = Merchant{.id = kMerchant,
                                          .key = kKey,
                                          .channel = "sim",
                                          .notify_address = merchant_server_.address(),
                                          .notify_client = ""};
  std::unique_ptr<PaysimApp> app;
  Status s = PaysimApp::Create(config_, nullptr, &app);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_NO_FATAL_FAILURE(
      paysim_.Serve(std::move(app), {.filters = filters_}, testsupport::LoopbackClientOptions(5s)));
}

void PaysimTest::TearDown() {
  paysim_.Stop();
  merchant_server_.Stop();
}

MerchantCall PaysimTest::Call(std::string_view method, const google::protobuf::Message& body,
                              std::string_view key, int64_t sent_at_ms) {
  return SignMerchantCall(method, kMerchant, key, sent_at_ms == 0 ? NowMs() : sent_at_ms, body);
}

Result<PaymentResponse> PaysimTest::Create(int64_t order_no, int64_t amount_cents,
                                           int64_t expires_in_ms) {
  CreatePaymentRequest body;
  body.set_order_no(order_no);
  body.set_amount_cents(amount_cents);
  body.set_currency("CNY");
  body.set_expires_at_ms(NowMs() + expires_in_ms);
  return proxy().CreatePayment(Call("CreatePayment", body));
}

Result<PaymentResponse> PaysimTest::Query(int64_t order_no) {
  PaymentRef body;
  body.set_order_no(order_no);
  return proxy().QueryPayment(Call("QueryPayment", body));
}

Result<PaymentResponse> PaysimTest::Close(int64_t order_no) {
  PaymentRef body;
  body.set_order_no(order_no);
  return proxy().ClosePayment(Call("ClosePayment", body));
}

Result<PaymentResponse> PaysimTest::Refund(int64_t order_no, const std::string& txn,
                                           const std::string& refund_id) {
  RefundPaymentRequest body;
  body.set_order_no(order_no);
  body.set_channel_txn_id(txn);
  body.set_refund_id(refund_id);
  return proxy().RefundPayment(Call("RefundPayment", body));
}

Result<CheckoutResponse> PaysimTest::Pay(const std::string& checkout, CheckoutOutcome outcome) {
  CheckoutRequest request;
  request.set_checkout(checkout);
  request.set_outcome(outcome);
  return proxy().Checkout(request);
}

ListNotificationsResponse PaysimTest::WaitNotifications(
    int64_t order_no, const std::function<bool(const ListNotificationsResponse&)>& done) {
  ListNotificationsRequest request;
  request.set_merchant_id(kMerchant);
  request.set_order_no(order_no);
  ListNotificationsResponse last;
  const bool reached = testsupport::Eventually(
      [&] {
        auto listed = proxy().ListNotifications(request);
        if (!listed.ok()) return false;
        last = *listed;
        return done(last);
      },
      10s);
  EXPECT_TRUE(reached) << last.ShortDebugString();
  return last;
}

}  // namespace ferry::paysim::testing
