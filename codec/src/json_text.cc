#include "json_text.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>

namespace ferry::codec::json {
namespace {

constexpr char kHex[] = "0123456789abcdef";

// The escape of each code point below 0xa0, or "" for none (protobuf's kCommonEscapes).
struct CommonEscapes {
  char text[0xa0][7] = {};
  constexpr CommonEscapes() {
    for (unsigned c = 0; c < 0xa0; ++c) {
      if (c < 0x20 || c >= 0x7f || c == '<' || c == '>') {
        const char hex[7] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xf], 0};
        for (int i = 0; i < 7; ++i) text[c][i] = hex[i];
      }
    }
    const auto set = [this](unsigned c, char escaped) {
      text[c][0] = '\\';
      text[c][1] = escaped;
      text[c][2] = 0;
    };
    set('\b', 'b');
    set('\t', 't');
    set('\n', 'n');
    set('\f', 'f');
    set('\r', 'r');
    set('"', '"');
    set('\\', '\\');
  }
};
constexpr CommonEscapes kCommon;

void AppendHex4(uint32_t unit, std::string* out) {
  const char hex[6] = {'\\',
                       'u',
                       kHex[(unit >> 12) & 0xf],
                       kHex[(unit >> 8) & 0xf],
                       kHex[(unit >> 4) & 0xf],
                       kHex[unit & 0xf]};
  out->append(hex, 6);
}

// Code points at or above 0xa0 that protobuf escapes although JSON does not require it, to keep
// them from confusing JavaScript; false for the rest.
bool EscapeWide(uint32_t cp, std::string* out) {
  const bool bmp = cp == 0x00ad || cp == 0x06dd || cp == 0x070f || cp == 0x17b4 || cp == 0x17b5 ||
                   cp == 0xfeff || (cp >= 0xfff9 && cp <= 0xfffb) ||
                   (cp >= 0x0600 && cp <= 0x0603) || (cp >= 0x200b && cp <= 0x200f) ||
                   (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x2064) ||
                   (cp >= 0x206a && cp <= 0x206f);
  if (bmp) {
    AppendHex4(cp, out);
    return true;
  }
  if (cp == 0xe0001 || (cp >= 0x1d173 && cp <= 0x1d17a) || (cp >= 0xe0020 && cp <= 0xe007f)) {
    AppendHex4(0xd800 + ((cp - 0x10000) >> 10), out);
    AppendHex4(0xdc00 + (cp & 0x3ff), out);
    return true;
  }
  return false;
}

bool NeedsEscaping(std::string_view text) {
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte >= 0x7f || c == '"' || c == '<' || c == '>' || c == '\\') return true;
  }
  return false;
}

// protobuf's round-trip checks: strtod's value for doubles; for floats strtof's value with errno
// unset, so a subnormal float (ERANGE) always gets the longer form.
bool ReadsBack(const char* text, const char* end, double value) {
  double back = 0;
  if (const auto [ptr, error] = std::from_chars(text, end, back); error == std::errc()) {
    return back == value;
  }
  // from_chars refuses what underflows; strtod reads the subnormal (the text is terminated).
  return std::strtod(text, nullptr) == value;
}

bool ReadsBack(const char* text, const char*, float value) {
  errno = 0;
  const float back = std::strtof(text, nullptr);
  return errno == 0 && back == value;
}

template <typename T>
void AppendReal(T value, int digits, std::string* out) {
  if (std::isnan(value)) {
    out->append("\"NaN\"");
    return;
  }
  if (std::isinf(value)) {
    out->append(value > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    return;
  }
  char buffer[40];
  const double wide = value;
  // to_chars with a precision is printf's %.*g in the C locale.
  auto end =
      std::to_chars(buffer, buffer + sizeof(buffer) - 1, wide, std::chars_format::general, digits)
          .ptr;
  *end = '\0';
  if (!ReadsBack(buffer, end, value)) {
    end = std::to_chars(buffer, buffer + sizeof(buffer) - 1, wide, std::chars_format::general,
                        digits + (sizeof(T) == sizeof(float) ? 3 : 2))
              .ptr;
  }
  out->append(buffer, end);
}

}  // namespace

void AppendEscaped(std::string_view text, std::string* out) {
  if (!NeedsEscaping(text)) {
    out->append(text);
    return;
  }
  // protobuf's JsonEscaping::Escape over a whole string: a byte that breaks a sequence is
  // dropped with the sequence, and an overlong form stands for its code point.
  const size_t size = text.size();
  size_t i = 0;
  while (i < size) {
    uint32_t cp = static_cast<unsigned char>(text[i]);
    if (cp < 0x80) {
      if (kCommon.text[cp][0] != 0) {
        out->append(kCommon.text[cp]);
      } else {
        out->push_back(text[i]);
      }
      ++i;
      continue;
    }
    int left;
    if (cp <= 0xbf || cp > 0xf7) {
      ++i;
      continue;
    } else if (cp <= 0xdf) {
      cp &= 0x1f;
      left = 1;
    } else if (cp <= 0xef) {
      cp &= 0x0f;
      left = 2;
    } else {
      cp &= 0x07;
      left = 3;
    }
    size_t read = 1;
    bool valid = true;
    while (left > 0 && i + read < size) {
      const auto next = static_cast<unsigned char>(text[i + read]);
      ++read;
      --left;
      cp = (cp << 6) | (next & 0x3f);
      if (next < 0x80 || next > 0xbf) {
        valid = false;
        break;
      }
    }
    const bool surrogate = (cp & 0xfffff800) == 0xd800;
    if (valid && left == 0 && !surrogate && cp <= 0x10ffff) {
      if (cp < 0xa0) {
        if (kCommon.text[cp][0] != 0) {
          out->append(kCommon.text[cp]);
        } else {
          out->append(text.substr(i, read));
        }
      } else if (!EscapeWide(cp, out)) {
        out->append(text.substr(i, read));
      }
    }
    i += read;
  }
}

void AppendDouble(double value, std::string* out) { AppendReal(value, 15, out); }

void AppendFloat(float value, std::string* out) { AppendReal(value, 6, out); }

void AppendBase64(std::string_view bytes, std::string* out) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const auto* in = reinterpret_cast<const unsigned char*>(bytes.data());
  const size_t size = bytes.size();
  const size_t start = out->size();
  out->resize(start + (size + 2) / 3 * 4);
  char* to = out->data() + start;
  size_t i = 0;
  for (; i + 3 <= size; i += 3) {
    const uint32_t word = (uint32_t{in[i]} << 16) | (uint32_t{in[i + 1]} << 8) | in[i + 2];
    *to++ = kAlphabet[word >> 18];
    *to++ = kAlphabet[(word >> 12) & 0x3f];
    *to++ = kAlphabet[(word >> 6) & 0x3f];
    *to++ = kAlphabet[word & 0x3f];
  }
  if (i < size) {
    const bool two = i + 1 < size;
    const uint32_t word = (uint32_t{in[i]} << 16) | (two ? uint32_t{in[i + 1]} << 8 : 0);
    *to++ = kAlphabet[word >> 18];
    *to++ = kAlphabet[(word >> 12) & 0x3f];
    *to++ = two ? kAlphabet[(word >> 6) & 0x3f] : '=';
    *to++ = '=';
  }
}

}  // namespace ferry::codec::json
