#pragma once

#include <cstddef>
#include <cstdint>

namespace ferry::plugins {

// Unpadded base64url (RFC 4648 section 5) of `size` bytes into `out`, which must hold
// (8 * size + 5) / 6 characters.
inline void Base64UrlEncode(const uint8_t* bytes, size_t size, char* out) {
  static constexpr char kDigits[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  uint32_t bits = 0;
  int pending = 0;
  for (size_t i = 0; i < size; ++i) {
    bits = (bits << 8) | bytes[i];
    pending += 8;
    while (pending >= 6) {
      pending -= 6;
      *out++ = kDigits[(bits >> pending) & 0x3f];
    }
  }
  if (pending > 0) *out = kDigits[(bits << (6 - pending)) & 0x3f];
}

}  // namespace ferry::plugins
