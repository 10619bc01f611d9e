#include "hmac_sha256_key.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <utility>

namespace ferry::plugins {

HmacSha256Key::HmacSha256Key(std::string_view key) {
  EVP_MAC* mac = EVP_MAC_fetch(nullptr, OSSL_MAC_NAME_HMAC, nullptr);
  if (mac == nullptr) return;
  EVP_MAC_CTX* ctx = EVP_MAC_CTX_new(mac);
  EVP_MAC_free(mac);  // the context holds its own reference
  if (ctx == nullptr) return;
  char digest_name[] = "SHA256";
  const OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest_name, 0),
      OSSL_PARAM_construct_end()};
  // A null key would mean "no key yet", so an empty one points at a valid byte.
  const auto* key_bytes = reinterpret_cast<const unsigned char*>(key.empty() ? "" : key.data());
  if (EVP_MAC_init(ctx, key_bytes, key.size(), params) != 1) {
    EVP_MAC_CTX_free(ctx);
    return;
  }
  keyed_ = ctx;
}

HmacSha256Key::~HmacSha256Key() { EVP_MAC_CTX_free(keyed_); }

HmacSha256Key::Mac HmacSha256Key::Start() const {
  return Mac(keyed_ != nullptr ? EVP_MAC_CTX_dup(keyed_) : nullptr);
}

HmacSha256Key::Mac::~Mac() { EVP_MAC_CTX_free(ctx_); }

HmacSha256Key::Mac::Mac(Mac&& other) noexcept
    : ctx_(std::exchange(other.ctx_, nullptr)), failed_(other.failed_) {}

void HmacSha256Key::Mac::Update(std::string_view bytes) {
  if (ctx_ == nullptr || failed_ || bytes.empty()) return;
  failed_ =
      EVP_MAC_update(ctx_, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()) != 1;
}

std::optional<Sha256Digest> HmacSha256Key::Mac::Final() {
  if (ctx_ == nullptr || failed_) return std::nullopt;
  Sha256Digest digest;
  size_t length = 0;
  if (EVP_MAC_final(ctx_, digest.data(), &length, digest.size()) != 1 || length != digest.size()) {
    return std::nullopt;
  }
  return digest;
}

}  // namespace ferry::plugins
