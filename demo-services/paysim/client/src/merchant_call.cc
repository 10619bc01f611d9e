#include "ferry/paysim/merchant_call.h"

#include "ferry/paysim/signature.h"

namespace ferry::paysim {

std::string MerchantCallText(std::string_view method, std::string_view merchant_id,
                             int64_t sent_at_ms, std::string_view body) {
  std::string text;
  text.reserve(method.size() + merchant_id.size() + body.size() + 24);
  text.append(method).append("\n").append(merchant_id).append("\n");
  text.append(std::to_string(sent_at_ms)).append("\n").append(body);
  return text;
}

MerchantCall SignMerchantCall(std::string_view method, std::string_view merchant_id,
                              std::string_view key, int64_t sent_at_ms,
                              const google::protobuf::Message& body) {
  MerchantCall call;
  call.set_merchant_id(std::string(merchant_id));
  call.set_sent_at_ms(sent_at_ms);
  body.SerializeToString(call.mutable_body());
  call.set_signature(
      HexHmacSha256(key, MerchantCallText(method, merchant_id, sent_at_ms, call.body())));
  return call;
}

}  // namespace ferry::paysim
