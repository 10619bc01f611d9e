#include "ferry/paysim/signature.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

namespace ferry::paysim {

std::string HexHmacSha256(std::string_view key, std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest,
           &length) == nullptr) {
    return {};
  }
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(length * 2);
  for (unsigned int i = 0; i < length; ++i) {
    hex.push_back(kDigits[digest[i] >> 4]);
    hex.push_back(kDigits[digest[i] & 0xf]);
  }
  return hex;
}

bool SignatureMatches(std::string_view key, std::string_view data, std::string_view signature) {
  const std::string expected = HexHmacSha256(key, data);
  if (expected.empty() || signature.size() != expected.size()) return false;
  return CRYPTO_memcmp(expected.data(), signature.data(), expected.size()) == 0;
}

}  // namespace ferry::paysim
