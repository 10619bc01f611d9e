#include "json_shown_text.h"

#include <cstdint>

#include "ferry/codec/utf8.h"

namespace ferry::codec::json {
namespace {

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
    const size_t length = Utf8SequenceLength(text, at, &code_point);
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
