#include "hmac_sha256.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

namespace ferry::plugins {
namespace {

// Fetching the algorithm is the costly part of an OpenSSL 3 MAC, so each thread does it once
// and then only re-keys its context per call.
class ThreadMac {
 public:
  ThreadMac() : mac_(EVP_MAC_fetch(nullptr, OSSL_MAC_NAME_HMAC, nullptr)) {
    if (mac_ != nullptr) ctx_ = EVP_MAC_CTX_new(mac_);
  }
  ~ThreadMac() {
    EVP_MAC_CTX_free(ctx_);
    EVP_MAC_free(mac_);
  }
  ThreadMac(const ThreadMac&) = delete;
  ThreadMac& operator=(const ThreadMac&) = delete;

  EVP_MAC_CTX* ctx() const { return ctx_; }

 private:
  EVP_MAC* mac_;
  EVP_MAC_CTX* ctx_ = nullptr;
};

}  // namespace

std::optional<Sha256Digest> HmacSha256(std::string_view key,
                                       std::initializer_list<std::string_view> parts) {
  thread_local ThreadMac mac;
  EVP_MAC_CTX* ctx = mac.ctx();
  if (ctx == nullptr) return std::nullopt;
  char digest_name[] = "SHA256";
  const OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest_name, 0),
      OSSL_PARAM_construct_end()};
  // A null key would mean "keep the previous key", so an empty one points at a valid byte.
  const auto* key_bytes = reinterpret_cast<const unsigned char*>(key.empty() ? "" : key.data());
  if (EVP_MAC_init(ctx, key_bytes, key.size(), params) != 1) return std::nullopt;
  for (std::string_view part : parts) {
    if (EVP_MAC_update(ctx, reinterpret_cast<const unsigned char*>(part.data()), part.size()) !=
        1) {
      return std::nullopt;
    }
  }
  Sha256Digest digest;
  size_t length = 0;
  if (EVP_MAC_final(ctx, digest.data(), &length, digest.size()) != 1 || length != digest.size()) {
    return std::nullopt;
  }
  return digest;
}

}  // namespace ferry::plugins
