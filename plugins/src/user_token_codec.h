#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ferry/codec/status.h"
#include "hmac_sha256.h"
#include "hmac_sha256_key.h"

// The parts of a user token (ferry/plugins/user_token.h), so that the filter checks the cheap
// things (form, expiry, key id) before it computes a MAC.
namespace ferry::plugins {

struct UserTokenFields {
  int version = 1;  // 1: u1 (no audience, no id), 2: u2, 3: u3 (u2 with roles)
  std::string_view key_id;
  std::string_view user;
  std::string_view audience;  // u2 and u3
  std::string_view token_id;  // u2 and u3
  std::string_view roles;     // u3 only: comma-separated, as signed
  std::string_view issued;    // as signed
  std::string_view expires;
  int64_t issued_unix_s = 0;
  int64_t expires_unix_s = 0;
  std::string_view mac;  // as sent
};

// Splits a token; false when it is not one.
bool ParseUserToken(std::string_view token, UserTokenFields* out);

// The MAC a token of these fields carries; nullopt when OpenSSL fails.
std::optional<Sha256Digest> UserTokenMac(const HmacSha256Key& key, const UserTokenFields& token);

// Whether `token` carries `mac`, compared in constant time.
bool UserTokenMacMatches(const Sha256Digest& mac, const UserTokenFields& token);

// A whole token of `fields` (its times as numbers; u2 or u3 as the version says); empty when
// OpenSSL fails.
std::string EncodeUserToken(const HmacSha256Key& key, const UserTokenFields& fields);

}  // namespace ferry::plugins
