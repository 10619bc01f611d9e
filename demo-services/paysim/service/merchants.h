#pragma once

#include <map>
#include <string>

namespace ferry::paysim {

// A merchant of the channel: who may call the merchant methods with its key, and where its
// notifications go.
struct Merchant {
  std::string id;
  std::string key;  // shared with the merchant: signs its calls and the channel's notifications
  std::string channel = "sim";  // the merchant's name for this channel (ChannelNotification)
  std::string notify_address;   // host:port of the merchant's NotifyPayment
  std::string notify_client;    // or the name of a `clients:` entry (targets, registries)
};

using Merchants = std::map<std::string, Merchant, std::less<>>;

}  // namespace ferry::paysim
