#pragma once

#include <string>

#include "ferry/framework/config_reader.h"
#include "service/payment_config.h"

namespace ferry::seckill {

// Reads the keys of a `kind: simulated` channel (README, "Payments"): address, merchant_id,
// key or key_file, timeout_ms; mistakes through `channel`, naming key and line.
PaymentChannelFactory ReadSimChannelConfig(config::ConfigReader& channel, const std::string& name);

}  // namespace ferry::seckill
