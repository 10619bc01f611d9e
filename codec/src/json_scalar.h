#pragma once

#include <cstdint>
#include <string>
#include <string_view>

// Reading a JSON number or string as a protobuf scalar, accepting exactly what protobuf 3.21's
// JsonStringToMessage accepts (its DataPiece conversions): a client that the gateway served
// before must be served the same.
namespace ferry::codec::json {

enum class Conversion { kOk, kInvalid, kOutOfRange };

// `number` is a JSON number's text, terminated by a NUL after it. Integers take integral values
// only (1.0 and 1e2 are integers, 1.5 is not); -0 is +0; floats refuse what rounds to infinity.
Conversion NumberToInt(std::string_view number, int32_t* value);
Conversion NumberToInt(std::string_view number, int64_t* value);
Conversion NumberToInt(std::string_view number, uint32_t* value);
Conversion NumberToInt(std::string_view number, uint64_t* value);
Conversion NumberToReal(std::string_view number, double* value);
Conversion NumberToReal(std::string_view number, float* value);

// A JSON string's content: an optionally signed decimal integer (no spaces, no exponent);
// "NaN", "Infinity", "-Infinity" or anything C's strtod reads to a finite value, without a
// space at either end; a bool as t, true, yes, y, 1 or f, false, no, n, 0 in any case.
Conversion StringToInt(std::string_view text, int32_t* value);
Conversion StringToInt(std::string_view text, int64_t* value);
Conversion StringToInt(std::string_view text, uint32_t* value);
Conversion StringToInt(std::string_view text, uint64_t* value);
Conversion StringToReal(std::string_view text, double* value);
Conversion StringToReal(std::string_view text, float* value);
bool StringToBool(std::string_view text, bool* value);

// Standard or URL-safe base64 (one alphabet, not both), unpadded or padded to a multiple of
// four, with the unused bits of the last character zero.
bool DecodeBase64(std::string_view text, std::string* bytes);

}  // namespace ferry::codec::json
