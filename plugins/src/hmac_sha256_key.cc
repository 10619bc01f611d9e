// SHA256_CTX is deprecated in OpenSSL 3 in favour of EVP_MD_CTX, which can only be copied by
// allocating (EVP_MD_CTX_copy_ex duplicates the provider's context): a plain state, copied by
// assignment, is what makes a keyed MAC cheap. The functions remain in every OpenSSL 3.
#define OPENSSL_SUPPRESS_DEPRECATED
#include "hmac_sha256_key.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include <algorithm>
#include <array>

namespace ferry::plugins {
namespace {

constexpr size_t kBlockBytes = 64;

}  // namespace

struct HmacSha256Key::KeyedStates {
  SHA256_CTX inner;  // after key ^ ipad
  SHA256_CTX outer;  // after key ^ opad
};

HmacSha256Key::HmacSha256Key(std::string_view key) {
  std::array<unsigned char, kBlockBytes> block{};
  // Keys longer than a block are hashed first (RFC 2104 section 2).
  if (key.size() > kBlockBytes) {
    if (SHA256(reinterpret_cast<const unsigned char*>(key.data()), key.size(), block.data()) ==
        nullptr) {
      return;
    }
  } else {
    std::copy(key.begin(), key.end(), block.begin());
  }
  std::array<unsigned char, kBlockBytes> ipad;
  std::array<unsigned char, kBlockBytes> opad;
  for (size_t i = 0; i < kBlockBytes; ++i) {
    ipad[i] = block[i] ^ 0x36;
    opad[i] = block[i] ^ 0x5c;
  }
  auto states = std::make_unique<KeyedStates>();
  const bool keyed = SHA256_Init(&states->inner) == 1 &&
                     SHA256_Update(&states->inner, ipad.data(), ipad.size()) == 1 &&
                     SHA256_Init(&states->outer) == 1 &&
                     SHA256_Update(&states->outer, opad.data(), opad.size()) == 1;
  OPENSSL_cleanse(block.data(), block.size());
  OPENSSL_cleanse(ipad.data(), ipad.size());
  OPENSSL_cleanse(opad.data(), opad.size());
  if (keyed) keyed_ = std::move(states);
}

HmacSha256Key::~HmacSha256Key() {
  if (keyed_ != nullptr) OPENSSL_cleanse(const_cast<KeyedStates*>(keyed_.get()), sizeof *keyed_);
}

std::optional<Sha256Digest> HmacSha256Key::Mac(
    std::initializer_list<std::string_view> parts) const {
  if (keyed_ == nullptr) return std::nullopt;
  SHA256_CTX inner = keyed_->inner;
  bool ok = true;
  for (std::string_view part : parts) {
    ok = ok && SHA256_Update(&inner, part.data(), part.size()) == 1;
  }
  Sha256Digest inner_digest;
  ok = ok && SHA256_Final(inner_digest.data(), &inner) == 1;
  SHA256_CTX outer = keyed_->outer;
  Sha256Digest digest;
  ok = ok && SHA256_Update(&outer, inner_digest.data(), inner_digest.size()) == 1 &&
       SHA256_Final(digest.data(), &outer) == 1;
  if (!ok) return std::nullopt;
  return digest;
}

}  // namespace ferry::plugins
