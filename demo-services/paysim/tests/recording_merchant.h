#pragma once

// A merchant's NotifyPayment for paysim's own tests: the seckill provider's service as the
// channel calls it, answering as the test says and keeping what it received, so that the
// tests see the bytes on the wire. (The seckill provider itself receives them in
// demo-services/seckill/tests/seckill_payment_test.cc.)

#include <mutex>
#include <string>
#include <vector>

#include "seckill.ferry.h"

namespace ferry::paysim::testing {

struct Received {
  std::string channel;
  std::string payload;
  std::string signature;
};

class RecordingMerchant final : public seckill::SeckillServiceBase {
 public:
  // The next `n` notifications are answered UNAVAILABLE (the merchant down).
  void RefuseNext(int n) {
    std::lock_guard lock(mu_);
    refuse_ = n;
  }
  std::vector<Received> received() {
    std::lock_guard lock(mu_);
    return received_;
  }
  Status NotifyPayment(ServerContext&, const seckill::ChannelNotification& request,
                       seckill::NotifyPaymentResponse* response) override {
    std::lock_guard lock(mu_);
    received_.push_back({request.channel(), request.payload(), request.signature()});
    if (refuse_ > 0) {
      --refuse_;
      return Status(StatusCode::UNAVAILABLE, "merchant down");
    }
    response->set_outcome(seckill::APPLIED);
    return Status::Ok();
  }

 private:
  std::mutex mu_;
  int refuse_ = 0;
  std::vector<Received> received_;
};

}  // namespace ferry::paysim::testing
