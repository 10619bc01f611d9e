#pragma once

#include <cstdint>
#include <string_view>

#include "ferry/codec/status.h"
#include "paysim.pb.h"
#include "service/merchants.h"

namespace ferry::paysim {

// Checks a merchant call to `method`: a configured merchant, its key's signature over the
// call, sent within `max_skew_ms` of `now_ms`; then parses the body into `body`.
// UNAUTHENTICATED for the first three (saying which, never the expected signature),
// INVALID_ARGUMENT for a body that does not parse.
Status VerifyMerchantCall(const Merchants& merchants, std::string_view method,
                          const MerchantCall& call, int64_t now_ms, int64_t max_skew_ms,
                          google::protobuf::Message* body);

}  // namespace ferry::paysim
