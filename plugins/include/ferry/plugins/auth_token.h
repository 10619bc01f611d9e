#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "ferry/codec/status.h"

namespace ferry::plugins {

// The credential of the `auth` filters:
//
//   v2:<unix_ms>:<22 unpadded base64url digits of the first 128 bits of
//                 HMAC-SHA256(secret, "v2" "\n" service "\n" method "\n" unix_ms)>
//
// It proves that the caller knows the shared secret, binds the proof to one method so that a
// token captured for one method cannot call another, and dates it so that a captured token
// goes stale after the server's allowed clock skew. Servers also accept the longer tokens of
// earlier clients: v1:<unix_ms>:<64 lowercase hex digits of HMAC-SHA256(secret, service "\n"
// method "\n" unix_ms)>.
std::string MakeAuthToken(std::string_view secret, std::string_view service,
                          std::string_view method, int64_t unix_ms);

// OK when `token` was made with `secret` for this method and its time is within `max_skew` of
// `now_unix_ms` either way; otherwise UNAUTHENTICATED saying what is wrong (missing, malformed,
// expired or not signed with this secret), never revealing the expected signature.
Status VerifyAuthToken(std::string_view secret, std::string_view token, std::string_view service,
                       std::string_view method, int64_t now_unix_ms,
                       std::chrono::milliseconds max_skew);

// The <unix_ms> of a "v2:<unix_ms>:..." (or "v1:...") token, or -1 when it has none.
int64_t AuthTokenMillis(std::string_view token);

}  // namespace ferry::plugins
