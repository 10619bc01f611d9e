#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>

namespace ferry::plugins {

using Sha256Digest = std::array<uint8_t, 32>;

// HMAC-SHA256 (RFC 2104) under `key` of the concatenation of `parts`, through OpenSSL.
// nullopt only when OpenSSL itself fails, which callers must treat as "cannot verify".
std::optional<Sha256Digest> HmacSha256(std::string_view key,
                                       std::initializer_list<std::string_view> parts);

}  // namespace ferry::plugins
