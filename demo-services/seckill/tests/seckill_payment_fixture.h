#pragma once

// The seckill provider paying through the real simulated channel: paysim (demo-services/paysim,
// store in memory) served in-process on its own loopback port, the provider's `payments:`
// section read from YAML naming it (kind simulated), and paysim notifying the provider's
// NotifyPayment. Over both backends, as SeckillServiceTest.

#include <cstdint>
#include <functional>
#include <string>

#include "paysim.ferry.h"
#include "seckill_service_fixture.h"
#include "service/paysim_app.h"

namespace ferry::seckill::testing {

inline constexpr const char* kSimMerchant = "seckill";
inline constexpr const char* kSimKey = "seckill-sim-key-0123456789";

class SeckillPaymentTest : public SeckillServiceTest {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Starts the provider with `payments:` as this YAML (its channels.sim filled in).
  // `key`: the merchant key the provider signs its calls to the channel with.
  void StartWithPayments(int64_t confirm_window_ms = 60000, const std::string& key = kSimKey);
  paysim::PaysimServiceProxy& paysim() { return paysim_.proxy(); }

  // Buys one unit of `activity` as `user`; the order number (0 with a gtest failure).
  int64_t OrderOf(int64_t activity, const std::string& user);
  // StartPayment at "sim": the intent (with a gtest failure when refused).
  PaymentIntent StartPaying(int64_t order_no);
  OrderView Order(int64_t order_no);
  // GetOrder until its state is `state`; false (with a gtest failure) after `timeout`.
  bool WaitState(int64_t order_no, const std::string& state,
                 std::chrono::milliseconds timeout = std::chrono::seconds(20));
  // The channel's own record of the order's payment (a signed QueryPayment).
  paysim::Payment AtChannel(int64_t order_no);
  // paysim's deliveries about the order, once `done` holds for them.
  paysim::ListNotificationsResponse Deliveries(
      int64_t order_no, const std::function<bool(const paysim::ListNotificationsResponse&)>& done);
  void SetChannelDown(bool down);
  // seckill_payment_notifications_total{outcome}.
  static uint64_t Notifications(const std::string& outcome);

  testsupport::AppProvider<paysim::PaysimApp, paysim::PaysimServiceProxy> paysim_;
};

}  // namespace ferry::seckill::testing
