#pragma once

#include <string>
#include <string_view>

namespace ferry::paysim {

// Lower-case hex HMAC-SHA256 of `data` under `key` (OpenSSL); empty only when OpenSSL fails.
std::string HexHmacSha256(std::string_view key, std::string_view data);

// Whether `signature` is HexHmacSha256(key, data), compared in constant time so that the time
// an answer takes tells nothing about how much of a forged signature was right.
bool SignatureMatches(std::string_view key, std::string_view data, std::string_view signature);

}  // namespace ferry::paysim
