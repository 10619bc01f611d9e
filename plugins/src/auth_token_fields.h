#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ferry/codec/status.h"
#include "ferry/plugins/auth_token.h"
#include "hmac_sha256.h"
#include "hmac_sha256_key.h"

// The parts of a v4 token (ferry/plugins/auth_token.h), or of a v3 one for a server still taking
// them, that the filters use one by one, so that the server checks the cheap things before it
// computes a MAC, and both sides sign with a key keyed once.
//
//   v3:<key_id>:<unix_ms>:<nonce>:<caller>:<signature of "v3\n" key_id "\n" unix_ms "\n" nonce
//      "\n" caller "\n" service "\n" method "\n" <attachments> "\n" body>
//
// binds neither the timeout nor how the body is encoded, nor the one-way flag, nor the caller's
// response limit.
namespace ferry::plugins {

inline constexpr size_t kMaxKeyIdChars = 64;
inline constexpr size_t kMaxCallerChars = 64;

// Whether `word` may be a key id (min_chars 1) or a caller (min_chars 0): [A-Za-z0-9._@-].
bool IsAuthTokenWord(std::string_view word, size_t min_chars, size_t max_chars);

struct AuthTokenFields {
  int version = 4;  // 3 or 4
  std::string_view key_id;
  std::string_view time;  // unix_ms as it was signed
  int64_t unix_ms = 0;
  std::string_view nonce;
  std::string_view caller;
  std::string_view timeout;  // v4: timeout_us as it was signed
  uint64_t timeout_us = 0;
  std::string_view signature;  // as sent
};

// UNAUTHENTICATED "auth: <why> for <service>/<method>".
Status AuthRefusal(const AuthRequest& request, std::string_view why);

// Splits a v4 or v3 token; "malformed token" otherwise.
Status ParseAuthToken(std::string_view token, const AuthRequest& request, AuthTokenFields* out);

// Whether the token's time is within `max_skew` of the server's `now_unix_ms`, saying which way
// and how far it is off when not.
Status CheckAuthTokenTime(const AuthTokenFields& token, const AuthRequest& request,
                          int64_t now_unix_ms, std::chrono::milliseconds max_skew);

// Whether the request's timeout is within the budget a v4 token signed: when it signed one, at
// least a microsecond and at most that (an attempt carries what is left of the call's budget);
// when it signed none, anything (a deadline added on the way only shortens the call).
Status CheckAuthTokenBudget(const AuthTokenFields& token, const AuthRequest& request);

// The MAC a token of these fields for `request` carries; nullopt when OpenSSL fails.
std::optional<Sha256Digest> AuthTokenMac(const HmacSha256Key& key, const AuthTokenFields& token,
                                         const AuthRequest& request);

// Whether `token` carries `mac`, compared in constant time.
Status CheckAuthTokenSignature(const std::optional<Sha256Digest>& mac, const AuthTokenFields& token,
                               const AuthRequest& request);

// A whole v4 token; without a signature (which no server accepts) when OpenSSL fails.
std::string MakeAuthToken(const HmacSha256Key& key, std::string_view key_id,
                          const AuthRequest& request, std::string_view caller, int64_t unix_ms,
                          std::string_view nonce);

}  // namespace ferry::plugins
