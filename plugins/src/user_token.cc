#include "ferry/plugins/user_token.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <vector>

#include "auth_token_fields.h"
#include "base64url.h"
#include "user_token_codec.h"

namespace ferry::plugins {
namespace {

constexpr std::string_view kPrefix = "u1:";
constexpr std::string_view kPrefixV2 = "u2:";
constexpr std::string_view kPrefixV3 = "u3:";
constexpr size_t kMaxAudienceChars = 128;
constexpr size_t kMaxTokenIdChars = 64;
constexpr size_t kTokenIdRandomBytes = 12;
constexpr size_t kMaxRoleChars = 64;
constexpr size_t kMaxRoles = 16;
// The whole HMAC: the token lives for hours, not for one call.
constexpr size_t kMacChars = 43;

bool IsBase64Url(std::string_view text) {
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
          c == '_')) {
      return false;
    }
  }
  return true;
}

// Digits only (no sign, no leading '+'), within int64.
bool ParseSeconds(std::string_view text, int64_t* out) {
  if (text.empty() || text.size() > 18 || text[0] == '-' || text[0] == '+') return false;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return error == std::errc() && end == text.data() + text.size();
}

// 1 to kMaxRoles roles, each 1-64 characters of [A-Za-z0-9._@-], separated by commas.
bool AreRoles(std::string_view roles) {
  size_t count = 0;
  while (true) {
    const size_t comma = roles.find(',');
    if (!IsAuthTokenWord(roles.substr(0, comma), 1, kMaxRoleChars) || ++count > kMaxRoles) {
      return false;
    }
    if (comma == std::string_view::npos) return true;
    roles.remove_prefix(comma + 1);
  }
}

// The next field up to its ':' (or, for the last, the rest, which must have none).
bool NextField(std::string_view* rest, std::string_view* field, bool last) {
  const size_t colon = rest->find(':');
  if (last) {
    *field = *rest;
    return colon == std::string_view::npos;
  }
  if (colon == std::string_view::npos) return false;
  *field = rest->substr(0, colon);
  rest->remove_prefix(colon + 1);
  return true;
}

}  // namespace

bool ParseUserToken(std::string_view token, UserTokenFields* out) {
  out->version = token.starts_with(kPrefixV3)   ? 3
                 : token.starts_with(kPrefixV2) ? 2
                 : token.starts_with(kPrefix)   ? 1
                                                : 0;
  if (out->version == 0) return false;
  const bool v2 = out->version >= 2;
  std::string_view rest = token.substr(kPrefix.size());
  if (!NextField(&rest, &out->key_id, false) || !NextField(&rest, &out->user, false)) return false;
  if (v2 && (!NextField(&rest, &out->audience, false) || !NextField(&rest, &out->token_id, false) ||
             !IsAuthTokenWord(out->audience, 1, kMaxAudienceChars) ||
             !IsAuthTokenWord(out->token_id, 1, kMaxTokenIdChars))) {
    return false;
  }
  out->roles = {};
  if (out->version == 3 && (!NextField(&rest, &out->roles, false) || !AreRoles(out->roles))) {
    return false;
  }
  return NextField(&rest, &out->issued, false) && NextField(&rest, &out->expires, false) &&
         NextField(&rest, &out->mac, true) && IsAuthTokenWord(out->key_id, 1, kMaxKeyIdChars) &&
         IsAuthTokenWord(out->user, 1, kMaxUserIdChars) &&
         ParseSeconds(out->issued, &out->issued_unix_s) &&
         ParseSeconds(out->expires, &out->expires_unix_s) && out->mac.size() == kMacChars &&
         IsBase64Url(out->mac);
}

std::optional<Sha256Digest> UserTokenMac(const HmacSha256Key& key, const UserTokenFields& token) {
  if (token.version == 3) {
    return key.Mac({"u3\n", token.key_id, "\n", token.user, "\n", token.audience, "\n",
                    token.token_id, "\n", token.roles, "\n", token.issued, "\n", token.expires});
  }
  if (token.version == 2) {
    return key.Mac({"u2\n", token.key_id, "\n", token.user, "\n", token.audience, "\n",
                    token.token_id, "\n", token.issued, "\n", token.expires});
  }
  return key.Mac({"u1\n", token.key_id, "\n", token.user, "\n", token.issued, "\n", token.expires});
}

bool UserTokenMacMatches(const Sha256Digest& mac, const UserTokenFields& token) {
  std::array<char, kMacChars> expected;
  Base64UrlEncode(mac.data(), mac.size(), expected.data());
  // Constant time, so that response timing reveals nothing about the expected MAC.
  return token.mac.size() == kMacChars &&
         CRYPTO_memcmp(expected.data(), token.mac.data(), kMacChars) == 0;
}

std::string EncodeUserToken(const HmacSha256Key& key, const UserTokenFields& fields) {
  const std::string issued = std::to_string(fields.issued_unix_s);
  const std::string expires = std::to_string(fields.expires_unix_s);
  UserTokenFields signed_fields = fields;
  signed_fields.issued = issued;
  signed_fields.expires = expires;
  const std::optional<Sha256Digest> mac = UserTokenMac(key, signed_fields);
  if (!mac) return "";
  std::string token(fields.version == 3 ? kPrefixV3 : fields.version == 2 ? kPrefixV2 : kPrefix);
  token.append(fields.key_id).append(":").append(fields.user).append(":");
  if (fields.version >= 2) {
    token.append(fields.audience).append(":").append(fields.token_id).append(":");
  }
  if (fields.version == 3) token.append(fields.roles).append(":");
  token.append(issued).append(":").append(expires).append(":");
  const size_t at = token.size();
  token.resize(at + kMacChars);
  Base64UrlEncode(mac->data(), mac->size(), token.data() + at);
  return token;
}

std::string MakeUserToken(std::string_view key_id, std::string_view secret, std::string_view user,
                          int64_t issued_unix_s, int64_t expires_unix_s) {
  if (!IsAuthTokenWord(key_id, 1, kMaxKeyIdChars) || !IsAuthTokenWord(user, 1, kMaxUserIdChars) ||
      secret.empty() || issued_unix_s < 0 || expires_unix_s <= issued_unix_s) {
    return "";
  }
  const HmacSha256Key key(secret);
  if (!key.ok()) return "";
  return EncodeUserToken(key, {.key_id = key_id,
                               .user = user,
                               .issued_unix_s = issued_unix_s,
                               .expires_unix_s = expires_unix_s});
}

std::string MakeUserToken(std::string_view key_id, std::string_view secret,
                          const UserTokenClaims& claims) {
  if (!IsAuthTokenWord(key_id, 1, kMaxKeyIdChars) ||
      !IsAuthTokenWord(claims.user, 1, kMaxUserIdChars) ||
      !IsAuthTokenWord(claims.audience, 1, kMaxAudienceChars) ||
      !IsAuthTokenWord(claims.token_id, 1, kMaxTokenIdChars) || secret.empty() ||
      claims.issued_unix_s < 0 || claims.expires_unix_s <= claims.issued_unix_s) {
    return "";
  }
  // In byte order and once each, so that a set of roles is signed one way only.
  std::vector<std::string_view> roles(claims.roles.begin(), claims.roles.end());
  std::sort(roles.begin(), roles.end());
  roles.erase(std::unique(roles.begin(), roles.end()), roles.end());
  if (roles.size() > kMaxRoles) return "";
  std::string joined;
  for (std::string_view role : roles) {
    if (!IsAuthTokenWord(role, 1, kMaxRoleChars)) return "";
    joined.append(joined.empty() ? "" : ",").append(role);
  }
  const HmacSha256Key key(secret);
  if (!key.ok()) return "";
  return EncodeUserToken(key, {.version = roles.empty() ? 2 : 3,
                               .key_id = key_id,
                               .user = claims.user,
                               .audience = claims.audience,
                               .token_id = claims.token_id,
                               .roles = joined,
                               .issued_unix_s = claims.issued_unix_s,
                               .expires_unix_s = claims.expires_unix_s});
}

std::string NewUserTokenId() {
  std::array<unsigned char, kTokenIdRandomBytes> random;
  if (RAND_bytes(random.data(), static_cast<int>(random.size())) != 1) return "";
  std::string id(kTokenIdRandomBytes / 3 * 4, '\0');
  Base64UrlEncode(random.data(), random.size(), id.data());
  return id;
}

}  // namespace ferry::plugins
