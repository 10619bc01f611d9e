#include "json_shown_text.h"

#include <cstdint>

namespace ferry::codec::json {
namespace {

bool Continuation(unsigned char byte) { return (byte & 0xc0) == 0x80; }

// The length of the UTF-8 sequence at `at` and its code point; 0 when it is not one.
size_t Sequence(std::string_view text, size_t at, uint32_t* code_point) {
  const auto lead = static_cast<unsigned char>(text[at]);
  size_t length;
  if (lead < 0x80) {
    *code_point = lead;
    return 1;
  }
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
    *code_point = lead & 0x1f;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    *code_point = lead & 0x0f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    *code_point = lead & 0x07;
  } else {
    return 0;
  }
  if (text.size() - at < length) return 0;
  for (size_t i = 1; i < length; ++i) {
    const auto byte = static_cast<unsigned char>(text[at + i]);
    if (!Continuation(byte)) return 0;
    *code_point = (*code_point << 6) | (byte & 0x3f);
  }
  return length;
}

// Code points a terminal or a log viewer takes for a line break or a change of direction.
bool Deceptive(uint32_t code_point) {
  return code_point < 0x20 || (code_point >= 0x7f && code_point <= 0x9f) ||
         (code_point >= 0x2028 && code_point <= 0x202e) ||
         (code_point >= 0x2066 && code_point <= 0x2069);
}

void AppendHex(uint32_t value, int digits, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4)
    out->push_back(kHex[(value >> shift) & 15]);
}

}  // namespace

std::string ShownText(std::string_view text, size_t max_bytes) {
  std::string out;
  size_t at = 0;
  while (at < text.size()) {
    if (at >= max_bytes) {
      out += "...";
      break;
    }
    uint32_t code_point = 0;
    const size_t length = Sequence(text, at, &code_point);
    if (length == 0) {
      out += "\\x";
      AppendHex(static_cast<unsigned char>(text[at]), 2, &out);
      ++at;
      continue;
    }
    switch (code_point) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (Deceptive(code_point)) {
          out += "\\u";
          AppendHex(code_point, 4, &out);
        } else {
          out.append(text.substr(at, length));
        }
    }
    at += length;
  }
  return out;
}

}  // namespace ferry::codec::json
