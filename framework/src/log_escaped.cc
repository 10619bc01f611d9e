#include <cstdint>
#include <string>
#include <string_view>

#include "ferry/codec/utf8.h"
#include "ferry/framework/logging.h"

namespace ferry {
namespace {

void AppendHex(unsigned char byte, std::string* out) {
  static constexpr char kDigits[] = "0123456789abcdef";
  out->append("\\x");
  out->push_back(kDigits[byte >> 4]);
  out->push_back(kDigits[byte & 0x0F]);
}

// Shown as they are: printable ASCII, but for what quotes or escapes (and spaces in a word).
bool Plain(unsigned char c, bool word) {
  return c >= 0x20 && c < 0x7F && c != '\\' && c != '"' && !(word && c == ' ');
}

}  // namespace

void AppendLogEscaped(std::string_view text, std::string* out, bool word) {
  size_t i = 0;
  while (i < text.size()) {
    // Runs of plain bytes, nearly every field's whole text, are copied at once.
    size_t plain = i;
    while (plain < text.size() && Plain(static_cast<unsigned char>(text[plain]), word)) ++plain;
    out->append(text.substr(i, plain - i));
    if (plain == text.size()) return;
    i = plain;
    const unsigned char c = static_cast<unsigned char>(text[i]);
    switch (c) {
      case '\\':
        out->append("\\\\");
        ++i;
        continue;
      case '"':
        out->append("\\\"");
        ++i;
        continue;
      case '\n':
        out->append("\\n");
        ++i;
        continue;
      case '\r':
        out->append("\\r");
        ++i;
        continue;
      case '\t':
        out->append("\\t");
        ++i;
        continue;
      default:
        break;
    }
    if (c < 0x80) {  // another control character, DEL, or a space in a word
      AppendHex(c, out);
      ++i;
      continue;
    }
    uint32_t code_point = 0;
    const size_t length = codec::Utf8SequenceLength(text, i, &code_point);
    // C1 controls (NEL among them) and the Unicode line and paragraph separators end lines in
    // some viewers.
    const bool breaks =
        (code_point >= 0x80 && code_point <= 0x9F) || code_point == 0x2028 || code_point == 0x2029;
    if (length == 0 || breaks) {
      for (size_t b = 0; b < (length == 0 ? 1 : length); ++b) {
        AppendHex(static_cast<unsigned char>(text[i + b]), out);
      }
      i += length == 0 ? 1 : length;
      continue;
    }
    out->append(text.substr(i, length));
    i += length;
  }
}

std::string LogEscaped(std::string_view text, bool word) {
  std::string out;
  out.reserve(text.size());
  AppendLogEscaped(text, &out, word);
  return out;
}

}  // namespace ferry
