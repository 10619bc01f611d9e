#include "service/payment_config.h"

#include "service/sim_channel_config.h"

namespace ferry::seckill {

void ReadPaymentConfig(config::ConfigReader& payments, PaymentOptions* options,
                       std::vector<PaymentChannelFactory>* channels) {
  payments.String("currency", &options->currency);
  if (options->currency.empty() || options->currency.size() > 8) {
    payments.Invalid("currency", "expected 1..8 characters, e.g. CNY");
  }
  payments.Integer("expiry_margin_ms", 0, 3600000, &options->expiry_margin_ms);
  payments.Integer("confirm_window_ms", 1, 7 * 86400000LL, &options->confirm_window_ms);
  payments.Integer("retry_ms", 1, 3600000, &options->retry_ms);
  payments.Integer("notification_max_age_ms", 1000, 86400000, &options->notification_max_age_ms);
  config::ConfigReader section = payments.Section("channels");
  for (const std::string& name : payments.KeysOf("channels")) {
    config::ConfigReader channel = section.Section(name);
    if (name.empty() || name.size() > 32) {
      section.Invalid(name, "a channel's name must be 1..32 characters");
      continue;
    }
    std::string kind;
    channel.String("kind", &kind);
    // Each adapter reads its own keys; a kind no adapter has is a mistake.
    if (kind == "simulated") {
      channels->push_back(ReadSimChannelConfig(channel, name));
      continue;
    }
    channel.Invalid("kind", "expected a payment channel adapter (simulated), got '" + kind + "'");
  }
  payments.RejectUnknownKeys();
}

}  // namespace ferry::seckill
