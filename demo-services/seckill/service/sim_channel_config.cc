#include "service/sim_channel_config.h"

#include "ferry/framework/secret_file.h"

#include "service/sim_payment_channel.h"

namespace ferry::seckill {

PaymentChannelFactory ReadSimChannelConfig(config::ConfigReader& channel, const std::string& name) {
  SimChannelOptions options;
  options.name = name;
  options.merchant_id = "seckill";
  channel.String("address", &options.address);
  if (options.address.find(':') == std::string::npos) {
    channel.Invalid("address",
                    "expected host:port of paysim-server, got '" + options.address + "'");
  }
  channel.String("merchant_id", &options.merchant_id);
  if (options.merchant_id.empty() || options.merchant_id.size() > 64) {
    channel.Invalid("merchant_id", "expected this provider's merchant id, 1..64 characters");
  }
  config::ReadSecret(channel, "key", "key_file", &options.key);
  if (options.key.size() < 16) {
    channel.Invalid(channel.Has("key_file") ? "key_file" : "key",
                    "the merchant's key must be at least 16 bytes (it signs money movements)");
  }
  channel.Integer("timeout_ms", 1, 60000, &options.timeout_ms);
  channel.RejectUnknownKeys();
  return PaymentChannelFactory{.name = name,
                               .make = [options](std::unique_ptr<PaymentChannel>* out) {
                                 return SimPaymentChannel::Create(options, out);
                               }};
}

}  // namespace ferry::seckill
