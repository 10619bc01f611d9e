#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ferry/codec/status.h"
#include "ferry/framework/config_reader.h"
#include "service/payment_channel.h"
#include "service/payments.h"

namespace ferry::seckill {

// A payment channel of the provider's config, ready to be made once the provider starts.
struct PaymentChannelFactory {
  std::string name;
  std::function<Status(std::unique_ptr<PaymentChannel>*)> make;
};

// Reads `payments:` (README, "Payments"): the options and `channels:`, a mapping of channel
// name to `{kind: <adapter>, ...the adapter's own keys}`. Mistakes are reported through
// `payments`, naming key and line.
void ReadPaymentConfig(config::ConfigReader& payments, PaymentOptions* options,
                       std::vector<PaymentChannelFactory>* channels);

}  // namespace ferry::seckill
