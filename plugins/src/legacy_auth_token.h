#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "ferry/codec/status.h"

// Tokens of clients before v3, which sign only service, method and time: anyone who sees one
// can send any body to that method, as often as they like, until it goes stale. Servers refuse
// them unless `accept_replayable_tokens` is set for a migration.
//
//   v2:<unix_ms>:<22 base64url digits of the first 128 bits of
//                 HMAC-SHA256(secret, "v2" "\n" service "\n" method "\n" unix_ms)>
//   v1:<unix_ms>:<64 hex digits of HMAC-SHA256(secret, service "\n" method "\n" unix_ms)>
namespace ferry::plugins {

// Whether `token` is of version 1 or 2 (so says its prefix).
bool IsLegacyAuthToken(std::string_view token);

// A v2 token, as clients before v3 made them.
std::string MakeV2AuthToken(std::string_view secret, std::string_view service,
                            std::string_view method, int64_t unix_ms);

// OK when the v1 or v2 `token` was made with `secret` for this method within `max_skew` of
// `now_unix_ms`; otherwise UNAUTHENTICATED saying what is wrong.
Status VerifyLegacyAuthToken(std::string_view secret, std::string_view token,
                             std::string_view service, std::string_view method, int64_t now_unix_ms,
                             std::chrono::milliseconds max_skew);

}  // namespace ferry::plugins
