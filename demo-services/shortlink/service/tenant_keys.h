#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ferry/codec/status.h"
#include "ferry/framework/server_context.h"
#include "storage/link_store.h"

namespace ferry::shortlink {

// Tenants' API keys: "slk_" and 64 hex digits (256 random bits from OpenSSL's CSPRNG), of
// which only the SHA-256 is stored. A key comes as the call's auth token: the binary meta's
// auth_token, or `Authorization: Bearer <key>` through the HTTP gateway.
// The most a token of this length and these kinds of character could carry (length × log2 of the
// alphabet its characters come from: hex, letters, digits, symbols): an upper bound, so a token
// below kMinAdminTokenBits is weak for certain.
double TokenBits(std::string_view token);
inline constexpr double kMinAdminTokenBits = 128;

class TenantKeys {
 public:
  // `admin_token_sha256`: SHA-256 (hex) of the token admin calls carry; empty: none allowed.
  TenantKeys(LinkStore* store, std::string admin_token_sha256)
      : store_(store), admin_token_sha256_(std::move(admin_token_sha256)) {}

  // The tenant of the call's key. UNAUTHENTICATED without a key, or for an unknown or revoked
  // one.
  Status Authenticate(const ServerContext& context, int64_t* tenant_id) const;
  // PERMISSION_DENIED unless the call carries the admin token, which must have at least
  // kMinAdminTokenBits.
  Status AuthorizeAdmin(const ServerContext& context) const;

  // A new key for `tenant_id` (NOT_FOUND for an unknown tenant).
  Status Issue(int64_t tenant_id, int64_t now_ms, int64_t* key_id, std::string* key) const;

 private:
  LinkStore* const store_;
  const std::string admin_token_sha256_;
};

}  // namespace ferry::shortlink
