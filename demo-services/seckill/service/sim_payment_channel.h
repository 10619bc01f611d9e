#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "paysim.ferry.h"
#include "service/payment_channel.h"

namespace ferry::seckill {

// How the provider reaches the simulated channel (demo-services/paysim): `payments.channels.
// <name>: {kind: simulated, ...}` (README, "Payments").
struct SimChannelOptions {
  std::string name;         // the channel's name here (orders record it)
  std::string address;      // host:port of paysim-server
  std::string merchant_id;  // this provider's merchant at the channel
  std::string key;          // the merchant's key there: signs calls, checks notifications
  int64_t timeout_ms = 2000;
};

// PaymentChannel over paysim's merchant API (signed calls through the generated proxy). A call
// the channel does not answer, or answers it cannot be reached, is UNAVAILABLE or
// DEADLINE_EXCEEDED, as payment_channel.h asks.
class SimPaymentChannel final : public PaymentChannel {
 public:
  static Status Create(SimChannelOptions options, std::unique_ptr<PaymentChannel>* out);

  std::string_view name() const override { return options_.name; }
  Status CreatePayment(const ChannelPaymentRequest& request, ChannelPayment* out) override;
  Status QueryPayment(int64_t order_no, ChannelPaymentStatus* out) override;
  Status ClosePayment(int64_t order_no, ChannelPaymentStatus* out) override;
  Status RefundPayment(int64_t order_no, const std::string& channel_txn_id,
                       const std::string& refund_id, ChannelPaymentStatus* out) override;
  Status VerifyNotification(std::string_view payload, std::string_view signature,
                            PaymentNotice* out) const override;

 private:
  SimPaymentChannel(SimChannelOptions options, std::shared_ptr<Channel> channel)
      : options_(std::move(options)), proxy_(std::move(channel)) {}
  paysim::MerchantCall Sign(std::string_view method, const google::protobuf::Message& body) const;
  CallOptions Options() const;

  const SimChannelOptions options_;
  paysim::PaysimServiceProxy proxy_;
};

}  // namespace ferry::seckill
