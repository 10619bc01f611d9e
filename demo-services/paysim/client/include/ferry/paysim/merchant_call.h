#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "paysim.pb.h"

namespace ferry::paysim {

// What a merchant call's signature covers (paysim.proto, MerchantCall): the method too, so that
// a captured call cannot be sent to another method with the same body.
std::string MerchantCallText(std::string_view method, std::string_view merchant_id,
                             int64_t sent_at_ms, std::string_view body);

// `body` serialized and signed with the merchant's `key` for `method` (e.g. "CreatePayment").
MerchantCall SignMerchantCall(std::string_view method, std::string_view merchant_id,
                              std::string_view key, int64_t sent_at_ms,
                              const google::protobuf::Message& body);

}  // namespace ferry::paysim
