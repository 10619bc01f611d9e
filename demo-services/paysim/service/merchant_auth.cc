#include "service/merchant_auth.h"

#include <string>

#include "ferry/paysim/merchant_call.h"
#include "ferry/paysim/signature.h"

namespace ferry::paysim {

Status VerifyMerchantCall(const Merchants& merchants, std::string_view method,
                          const MerchantCall& call, int64_t now_ms, int64_t max_skew_ms,
                          google::protobuf::Message* body) {
  const auto merchant = merchants.find(call.merchant_id());
  if (merchant == merchants.end()) {
    return Status(StatusCode::UNAUTHENTICATED, "unknown merchant '" + call.merchant_id() + "'");
  }
  const std::string text =
      MerchantCallText(method, call.merchant_id(), call.sent_at_ms(), call.body());
  if (!SignatureMatches(merchant->second.key, text, call.signature())) {
    return Status(StatusCode::UNAUTHENTICATED,
                  "merchant '" + call.merchant_id() + "': the signature of this " +
                      std::string(method) + " call does not match the merchant's key");
  }
  const int64_t skew = call.sent_at_ms() - now_ms;
  if (skew > max_skew_ms || -skew > max_skew_ms) {
    return Status(StatusCode::UNAUTHENTICATED,
                  "merchant '" + call.merchant_id() + "': call sent at " +
                      std::to_string(call.sent_at_ms()) + " ms, " + std::to_string(skew) +
                      " ms from now (at most " + std::to_string(max_skew_ms) + ")");
  }
  if (!body->ParseFromString(call.body())) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "body: not a " + std::string(body->GetDescriptor()->name()));
  }
  return Status::Ok();
}

}  // namespace ferry::paysim
