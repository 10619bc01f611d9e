#pragma once

#include <string>
#include <string_view>

// The text forms protobuf 3.21's JSON printer gives values, to the byte: clients and tests
// compare the gateway's answers with what protobuf's own converter printed before.
namespace ferry::codec::json {

// `text` inside a JSON string, without the quotes. Besides what JSON requires, protobuf escapes
// <, >, DEL, the C1 controls and a few invisible code points, and drops invalid UTF-8.
void AppendEscaped(std::string_view text, std::string* out);

// A finite value as printf's %.15g (%.17g when that does not read back the same; %.6g and %.9g
// for float), the others as the strings "NaN", "Infinity" and "-Infinity", quotes included.
void AppendDouble(double value, std::string* out);
void AppendFloat(float value, std::string* out);

// Standard base64, padded.
void AppendBase64(std::string_view bytes, std::string* out);

}  // namespace ferry::codec::json
