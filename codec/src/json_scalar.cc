#include "json_scalar.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace ferry::codec::json {
namespace {

constexpr uint64_t kInt64Magnitude = uint64_t{1} << 63;

// An integer's text, as protobuf's reader sees it: sign, then its magnitude if it fits 64 bits.
struct Whole {
  bool negative = false;
  uint64_t magnitude = 0;
};

// False when `digits` is not all decimal digits or does not fit 64 bits (`*overflow` then).
bool ReadDigits(std::string_view digits, uint64_t* magnitude, bool* overflow) {
  *overflow = false;
  if (digits.empty()) return false;
  const auto [end, error] =
      std::from_chars(digits.data(), digits.data() + digits.size(), *magnitude);
  if (end != digits.data() + digits.size() && error == std::errc()) return false;
  if (error == std::errc::result_out_of_range) {
    *overflow = digits.find_first_not_of("0123456789") == std::string_view::npos;
    return false;
  }
  return error == std::errc();
}

template <typename T>
Conversion FromWhole(const Whole& whole, T* value) {
  constexpr uint64_t max = std::numeric_limits<T>::max();
  if (whole.negative) {
    if constexpr (std::is_unsigned_v<T>) {
      if (whole.magnitude != 0) return Conversion::kOutOfRange;
      *value = 0;
    } else {
      if (whole.magnitude > max + 1) return Conversion::kOutOfRange;
      *value = static_cast<T>(-static_cast<int64_t>(whole.magnitude - 1) - 1);
    }
  } else {
    if (whole.magnitude > max) return Conversion::kOutOfRange;
    *value = static_cast<T>(whole.magnitude);
  }
  return Conversion::kOk;
}

template <typename T>
Conversion FromDouble(double real, T* value) {
  if (std::trunc(real) != real) return Conversion::kInvalid;
  // Both bounds are powers of two, exact as doubles: [-2^31, 2^31), [0, 2^64) and so on.
  constexpr double low = static_cast<double>(std::numeric_limits<T>::min());
  constexpr double high = std::is_unsigned_v<T>
                              ? 2.0 * (static_cast<double>(std::numeric_limits<T>::max() / 2) + 1)
                              : -low;
  if (real < low || real >= high) return Conversion::kOutOfRange;
  *value = static_cast<T>(real);
  return Conversion::kOk;
}

// A JSON integer that fits 64 bits is read as one (protobuf's reader does); others as doubles.
bool JsonWhole(std::string_view number, Whole* whole) {
  if (number.find_first_of(".eE") != std::string_view::npos) return false;
  whole->negative = !number.empty() && number.front() == '-';
  if (whole->negative) number.remove_prefix(1);
  bool overflow;
  if (!ReadDigits(number, &whole->magnitude, &overflow)) return false;
  return !whole->negative || whole->magnitude <= kInt64Magnitude;
}

Conversion JsonDouble(std::string_view number, double* value) {
  const char* end = number.data() + number.size();
  if (const auto [ptr, error] = std::from_chars(number.data(), end, *value);
      error == std::errc() && ptr == end) {
    return Conversion::kOk;
  }
  // from_chars refuses under- and overflow, which strtod reads as 0, a subnormal or infinity.
  *value = std::strtod(number.data(), nullptr);
  return std::isfinite(*value) ? Conversion::kOk : Conversion::kOutOfRange;
}

template <typename T>
Conversion NumberToIntOf(std::string_view number, T* value) {
  if (Whole whole; JsonWhole(number, &whole)) return FromWhole(whole, value);
  double real;
  if (JsonDouble(number, &real) != Conversion::kOk) return Conversion::kOutOfRange;
  return FromDouble(real, value);
}

template <typename T>
Conversion StringToIntOf(std::string_view text, T* value) {
  if (text.empty()) return Conversion::kInvalid;
  Whole whole;
  whole.negative = text.front() == '-';
  if (whole.negative || text.front() == '+') text.remove_prefix(1);
  if (std::is_unsigned_v<T> && whole.negative) return Conversion::kInvalid;
  bool overflow;
  if (!ReadDigits(text, &whole.magnitude, &overflow)) {
    return overflow ? Conversion::kOutOfRange : Conversion::kInvalid;
  }
  return FromWhole(whole, value);
}

bool IsAsciiSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

// protobuf's safe_strtod, then its refusal of what is not finite.
Conversion StringToDouble(std::string_view text, double* value) {
  if (text == "NaN") {
    *value = std::numeric_limits<double>::quiet_NaN();
    return Conversion::kOk;
  }
  if (text == "Infinity" || text == "-Infinity") {
    *value = text.front() == '-' ? -std::numeric_limits<double>::infinity()
                                 : std::numeric_limits<double>::infinity();
    return Conversion::kOk;
  }
  if (text.empty() || text.front() == ' ' || text.back() == ' ') return Conversion::kInvalid;
  // Through a C string, as protobuf does: what follows a NUL is not read.
  const std::string terminated(text);
  char* end = nullptr;
  *value = std::strtod(terminated.c_str(), &end);
  if (end == terminated.c_str()) return Conversion::kInvalid;
  while (IsAsciiSpace(*end)) ++end;
  if (*end != '\0' || std::isnan(*value)) return Conversion::kInvalid;
  if (std::isinf(*value)) {
    return text.find_first_of("0123456789") == std::string_view::npos ? Conversion::kInvalid
                                                                      : Conversion::kOutOfRange;
  }
  return Conversion::kOk;
}

bool EqualsIgnoringCase(std::string_view text, std::string_view lower) {
  if (text.size() != lower.size()) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if ((c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c) != lower[i]) return false;
  }
  return true;
}

// Both alphabets at once: a character's value, with kStandard or kUrlSafe for the characters only
// one alphabet has (a text may not mix them), or kNotBase64.
constexpr int kStandard = 0x100;
constexpr int kUrlSafe = 0x200;
constexpr int kNotBase64 = 0x400;
struct Base64Table {
  int16_t value[256] = {};
  constexpr Base64Table() {
    for (int16_t& v : value) v = kNotBase64;
    for (int i = 0; i < 26; ++i) {
      value['A' + i] = static_cast<int16_t>(i);
      value['a' + i] = static_cast<int16_t>(26 + i);
    }
    for (int i = 0; i < 10; ++i) value['0' + i] = static_cast<int16_t>(52 + i);
    value[uint8_t{'+'}] = 62 | kStandard;
    value[uint8_t{'/'}] = 63 | kStandard;
    value[uint8_t{'-'}] = 62 | kUrlSafe;
    value[uint8_t{'_'}] = 63 | kUrlSafe;
  }
};
constexpr Base64Table kBase64;

}  // namespace

Conversion NumberToInt(std::string_view number, int32_t* value) {
  return NumberToIntOf(number, value);
}
Conversion NumberToInt(std::string_view number, int64_t* value) {
  return NumberToIntOf(number, value);
}
Conversion NumberToInt(std::string_view number, uint32_t* value) {
  return NumberToIntOf(number, value);
}
Conversion NumberToInt(std::string_view number, uint64_t* value) {
  return NumberToIntOf(number, value);
}

Conversion NumberToReal(std::string_view number, double* value) {
  if (Whole whole; JsonWhole(number, &whole)) {
    *value = whole.negative ? -static_cast<double>(whole.magnitude)
                            : static_cast<double>(whole.magnitude);
    if (whole.magnitude == 0) *value = 0.0;
    return Conversion::kOk;
  }
  return JsonDouble(number, value);
}

Conversion NumberToReal(std::string_view number, float* value) {
  // An integer converts straight to float, as protobuf converts it: through a double it could
  // round twice.
  if (Whole whole; JsonWhole(number, &whole)) {
    if (whole.negative) {
      *value = whole.magnitude == kInt64Magnitude
                   ? static_cast<float>(std::numeric_limits<int64_t>::min())
                   : static_cast<float>(-static_cast<int64_t>(whole.magnitude));
    } else {
      *value = static_cast<float>(whole.magnitude);
    }
    return Conversion::kOk;
  }
  double real;
  if (JsonDouble(number, &real) != Conversion::kOk) return Conversion::kOutOfRange;
  *value = static_cast<float>(real);
  return std::isinf(*value) ? Conversion::kOutOfRange : Conversion::kOk;
}

Conversion StringToInt(std::string_view text, int32_t* value) { return StringToIntOf(text, value); }
Conversion StringToInt(std::string_view text, int64_t* value) { return StringToIntOf(text, value); }
Conversion StringToInt(std::string_view text, uint32_t* value) {
  return StringToIntOf(text, value);
}
Conversion StringToInt(std::string_view text, uint64_t* value) {
  return StringToIntOf(text, value);
}

Conversion StringToReal(std::string_view text, double* value) {
  return StringToDouble(text, value);
}

Conversion StringToReal(std::string_view text, float* value) {
  double real;
  if (const Conversion read = StringToDouble(text, &real); read != Conversion::kOk) return read;
  // Strings are held to float's range before rounding, numbers after (protobuf's two paths).
  if (std::isfinite(real) && std::abs(real) > std::numeric_limits<float>::max()) {
    return Conversion::kOutOfRange;
  }
  *value = static_cast<float>(real);
  return Conversion::kOk;
}

bool StringToBool(std::string_view text, bool* value) {
  for (const std::string_view yes : {"true", "t", "yes", "y", "1"}) {
    if (EqualsIgnoringCase(text, yes)) {
      *value = true;
      return true;
    }
  }
  for (const std::string_view no : {"false", "f", "no", "n", "0"}) {
    if (EqualsIgnoringCase(text, no)) {
      *value = false;
      return true;
    }
  }
  return false;
}

bool DecodeBase64(std::string_view text, std::string* bytes) {
  size_t size = text.size();
  while (size > 0 && text[size - 1] == '=') --size;
  const size_t padding = text.size() - size;
  const size_t tail = size % 4;
  if (tail == 1 || (padding != 0 && (tail == 0 || tail + padding != 4))) return false;
  bytes->resize(size / 4 * 3 + (tail == 0 ? 0 : tail - 1));
  const auto* in = reinterpret_cast<const unsigned char*>(text.data());
  char* out = bytes->data();
  int seen = 0;
  size_t i = 0;
  for (; i + 4 <= size; i += 4) {
    const int a = kBase64.value[in[i]];
    const int b = kBase64.value[in[i + 1]];
    const int c = kBase64.value[in[i + 2]];
    const int d = kBase64.value[in[i + 3]];
    seen |= a | b | c | d;
    const uint32_t word = (uint32_t(a & 0x3f) << 18) | (uint32_t(b & 0x3f) << 12) |
                          (uint32_t(c & 0x3f) << 6) | uint32_t(d & 0x3f);
    *out++ = static_cast<char>(word >> 16);
    *out++ = static_cast<char>(word >> 8);
    *out++ = static_cast<char>(word);
  }
  if (tail != 0) {
    const int a = kBase64.value[in[i]];
    const int b = kBase64.value[in[i + 1]];
    const int c = tail == 3 ? kBase64.value[in[i + 2]] : 0;
    seen |= a | b | c;
    // The bits past the last byte must be zero: one text per byte string.
    if ((tail == 2 ? b & 0xf : c & 0x3) != 0) return false;
    *out++ = static_cast<char>(((a & 0x3f) << 2) | ((b & 0x3f) >> 4));
    if (tail == 3) *out++ = static_cast<char>(((b & 0xf) << 4) | ((c & 0x3f) >> 2));
  }
  return (seen & kNotBase64) == 0 && (seen & (kStandard | kUrlSafe)) != (kStandard | kUrlSafe);
}

}  // namespace ferry::codec::json
