#include "service/tenant_keys.h"

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

Status TenantKeys::AuthorizeAdmin(const ServerContext& context) const {
  if (admin_token_sha256_.empty()) {
    return Status(StatusCode::PERMISSION_DENIED,
                  "admin calls are off: set service.admin_token_sha256");
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
