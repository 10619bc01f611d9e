#include "service/tenant_keys.h"

#include <cctype>
#include <cmath>

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "service/sha256_hex.h"

namespace ferry::shortlink {

Status TenantKeys::Authenticate(const ServerContext& context, int64_t* tenant_id) const {
  const std::string& key = context.auth_token();
  if (key.empty()) {
    return Status(StatusCode::UNAUTHENTICATED,
                  "this call needs a tenant's API key: `Authorization: Bearer <key>` over HTTP, "
                  "the call's auth token over the binary protocol");
  }
  if (Status s = store_->TenantForKey(Sha256Hex(key), tenant_id); !s.ok()) return s;
  if (*tenant_id == 0) return Status(StatusCode::UNAUTHENTICATED, "unknown or revoked API key");
  return Status::Ok();
}

double TokenBits(std::string_view token) {
  bool lower = false, upper = false, digit = false, other = false, hex_only = true;
  for (const char ch : token) {
    const unsigned char c = static_cast<unsigned char>(ch);
    lower |= std::islower(c) != 0;
    upper |= std::isupper(c) != 0;
    digit |= std::isdigit(c) != 0;
    other |= std::isalnum(c) == 0;
    hex_only &= std::isxdigit(c) != 0 && std::isupper(c) == 0;
  }
  const int alphabet =
      hex_only ? 16 : (lower ? 26 : 0) + (upper ? 26 : 0) + (digit ? 10 : 0) + (other ? 32 : 0);
  return alphabet < 2 ? 0 : static_cast<double>(token.size()) * std::log2(alphabet);
}

Status TenantKeys::AuthorizeAdmin(const ServerContext& context) const {
  if (admin_token_sha256_.empty()) {
    return Status(StatusCode::PERMISSION_DENIED,
                  "admin calls are off: set service.admin_token_sha256");
  }
  // Only the digest is configured, so the token's strength is checked where it is shown: a
  // weak token would make the unsalted digest a password to crack offline.
  if (TokenBits(context.auth_token()) < kMinAdminTokenBits) {
    return Status(StatusCode::PERMISSION_DENIED,
                  "the admin token must carry at least 128 bits (32 hex digits, or 22 of "
                  "[0-9A-Za-z]: `openssl rand -hex 16`)");
  }
  const std::string hash = Sha256Hex(context.auth_token());
  if (context.auth_token().empty() ||
      CRYPTO_memcmp(hash.data(), admin_token_sha256_.data(), hash.size()) != 0) {
    return Status(StatusCode::PERMISSION_DENIED, "this call needs the admin token");
  }
  return Status::Ok();
}

Status TenantKeys::Issue(int64_t tenant_id, int64_t now_ms, int64_t* key_id,
                         std::string* key) const {
  bool exists = false;
  if (Status s = store_->TenantExists(tenant_id, &exists); !s.ok()) return s;
  if (!exists) return Status(StatusCode::NOT_FOUND, "no tenant " + std::to_string(tenant_id));
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof(bytes)) != 1)
    return Status(StatusCode::INTERNAL, "RAND_bytes failed");
  static constexpr char kHex[] = "0123456789abcdef";
  *key = "slk_";
  for (unsigned char b : bytes) {
    *key += kHex[b >> 4];
    *key += kHex[b & 15];
  }
  return store_->AddApiKey(tenant_id, Sha256Hex(*key), now_ms, key_id);
}

}  // namespace ferry::shortlink
