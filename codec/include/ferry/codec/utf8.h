#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ferry::codec {

// The length of the well-formed UTF-8 sequence at `text[at]` (1 to 4 bytes), or 0 when the bytes
// there are not one: a stray continuation byte, a truncated sequence, an overlong encoding, a
// surrogate or a code point past U+10FFFF (RFC 3629). `*code_point`, when given, is set to what it
// encodes.
inline size_t Utf8SequenceLength(std::string_view text, size_t at, uint32_t* code_point = nullptr) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(at);
  size_t length = 0;
  uint32_t value = 0;
  uint32_t min = 0;
  if (lead < 0x80) {
    if (code_point != nullptr) *code_point = lead;
    return 1;
  } else if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    value = lead & 0x1Fu;
    min = 0x80;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    value = lead & 0x0Fu;
    min = 0x800;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    value = lead & 0x07u;
    min = 0x10000;
  } else {
    return 0;
  }
  if (text.size() - at < length) return 0;
  for (size_t i = 1; i < length; ++i) {
    const unsigned char next = byte(at + i);
    if ((next & 0xC0u) != 0x80u) return 0;
    value = (value << 6) | (next & 0x3Fu);
  }
  if (value < min || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) return 0;
  if (code_point != nullptr) *code_point = value;
  return length;
}

}  // namespace ferry::codec
