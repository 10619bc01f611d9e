#include "service/admission_tokens.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <charconv>

namespace ferry::seckill {

std::string AdmissionTokens::Mac(int64_t activity_id, int64_t sku_id, std::string_view user,
                                 int64_t expires_ms) const {
  const std::string data = "seckill-admission|" + std::to_string(activity_id) + "|" +
                           std::to_string(sku_id) + "|" + std::to_string(expires_ms) + "|" +
                           std::string(user);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (HMAC(EVP_sha256(), key_.data(), static_cast<int>(key_.size()),
           reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest,
           &length) == nullptr) {
    return {};
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i) {
    hex.push_back(kHex[digest[i] >> 4]);
    hex.push_back(kHex[digest[i] & 0xf]);
  }
  return hex;
}

std::string AdmissionTokens::Mint(int64_t activity_id, int64_t sku_id, std::string_view user,
                                  int64_t expires_ms) const {
  return std::to_string(expires_ms) + "." + Mac(activity_id, sku_id, user, expires_ms);
}

Status AdmissionTokens::Check(std::string_view token, int64_t activity_id, int64_t sku_id,
                              std::string_view user, int64_t now_ms) const {
  const auto denied = [](const std::string& why) {
    return Status(StatusCode::PERMISSION_DENIED, "admission_token: " + why);
  };
  const size_t dot = token.find('.');
  int64_t expires_ms = 0;
  if (dot == std::string_view::npos ||
      std::from_chars(token.data(), token.data() + dot, expires_ms).ptr != token.data() + dot) {
    return denied("malformed (expected the token Admit gave)");
  }
  const std::string expected = Mac(activity_id, sku_id, user, expires_ms);
  const std::string_view mac = token.substr(dot + 1);
  if (expected.empty() || mac.size() != expected.size() ||
      CRYPTO_memcmp(mac.data(), expected.data(), mac.size()) != 0) {
    return denied("not this user's admission to this activity and sku");
  }
  if (expires_ms <= now_ms) return denied("lapsed; ask Admit again");
  return Status::Ok();
}

}  // namespace ferry::seckill
