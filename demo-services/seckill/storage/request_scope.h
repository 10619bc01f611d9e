#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ferry::seckill {

// A purchase's idempotency key: a request id means one purchase only together with the user
// who sent it and the activity and sku it buys. The same id from another user, or in another
// activity, is another purchase and is decided on its own.
struct RequestScope {
  int64_t activity_id = 0;
  int64_t sku_id = 0;
  std::string user_id;
  std::string request_id;
};

// "<bytes of user>:<user>:<request>": the field of the Redis requests hash (whose key already
// names the activity and sku). The length prefix keeps any user and request id apart.
std::string RequestField(std::string_view user_id, std::string_view request_id);
// Splits a RequestField; false for anything else.
bool ParseRequestField(std::string_view field, std::string* user_id, std::string* request_id);
// The whole key as one string: "<activity>:<sku>:" + RequestField.
std::string RequestKeyText(const RequestScope& scope);

}  // namespace ferry::seckill
