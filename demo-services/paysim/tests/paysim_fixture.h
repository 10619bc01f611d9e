#pragma once

// paysim's tests: PaysimApp (store in memory) behind an in-process ferry::Server, called through
// the generated PaysimServiceProxy as the merchant "shop" (calls signed with its key) and as a
// buyer, notifying a RecordingMerchant served on another loopback port.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "app_provider.h"
#include "eventually.h"
#include "ferry/paysim/merchant_call.h"
#include "loopback_provider.h"
#include "paysim.ferry.h"
#include "recording_merchant.h"
#include "service/paysim_app.h"

namespace ferry::paysim::testing {

inline constexpr const char* kMerchant = "shop";
inline constexpr const char* kKey = "shop-key-0123456789abcdef";

int64_t NowMs();

class PaysimTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  PaysimServiceProxy& proxy() { return paysim_.proxy(); }
  PaysimApp& app() { return paysim_.app(); }

  // A merchant call of kMerchant to `method`, signed with `key`.
  static MerchantCall Call(std::string_view method, const google::protobuf::Message& body,
                           std::string_view key = kKey, int64_t sent_at_ms = 0);
  // CreatePayment of `order_no` for `amount_cents` CNY, expiring `expires_in_ms` from now.
  Result<PaymentResponse> Create(int64_t order_no, int64_t amount_cents,
                                 int64_t expires_in_ms = 60000);
  Result<PaymentResponse> Query(int64_t order_no);
  Result<PaymentResponse> Close(int64_t order_no);
  Result<PaymentResponse> Refund(int64_t order_no, const std::string& txn,
                                 const std::string& refund_id);
  Result<CheckoutResponse> Pay(const std::string& checkout, CheckoutOutcome outcome = PAY);
  // The deliveries about `order_no`, once `done` holds for them (a gtest failure on timeout).
  ListNotificationsResponse WaitNotifications(
      int64_t order_no, const std::function<bool(const ListNotificationsResponse&)>& done);

  PaysimConfig config_;
  std::vector<FilterSpec> filters_;  // the provider's server filters, set before SetUp()
  RecordingMerchant merchant_;
  testsupport::LoopbackProvider merchant_server_;
  testsupport::AppProvider<PaysimApp, PaysimServiceProxy> paysim_;
};

}  // namespace ferry::paysim::testing
