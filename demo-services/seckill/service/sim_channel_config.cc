#include "service/sim_channel_config.h"

#include <fstream>
#include <sstream>

#include "service/sim_payment_channel.h"

namespace ferry::seckill {

namespace {

// A key file holds the key alone; one trailing newline (as editors leave) is not part of it.
bool ReadKeyFile(const std::string& path, std::string* key) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream text;
  text << in.rdbuf();
  *key = text.str();
  if (!key->empty() && key->back() == '\n') key->pop_back();
  if (!key->empty() && key->back() == '\r') key->pop_back();
  return true;
}

}  // namespace

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
  std::string key_file;
  channel.String("key", &options.key);
  channel.String("key_file", &key_file);
  if (!key_file.empty()) {
    if (!options.key.empty()) channel.Invalid("key_file", "set either key or key_file, not both");
    if (!ReadKeyFile(key_file, &options.key)) {
      channel.Invalid("key_file", "cannot read '" + key_file + "'");
    }
  }
  if (options.key.size() < 16) {
    channel.Invalid(key_file.empty() ? "key" : "key_file",
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
