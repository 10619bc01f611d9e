#pragma once

#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <string>
#include <string_view>

#include "ferry/codec/json_codec.h"
#include "ferry/codec/status.h"

namespace ferry::codec::json {

// Numbers arrive as their text: the conversions need it exact (an integer is not a double), and
// errors quote it as written. Iterative: nesting costs the reader a counter per level, not a
// stack frame, and the handlers stop it at the depth limit.
inline constexpr unsigned kReaderFlags = rapidjson::kParseValidateEncodingFlag |
                                         rapidjson::kParseNumbersAsStringsFlag |
                                         rapidjson::kParseIterativeFlag;

// Feeds `json` to `handler`, whose error() says why it stopped the reader, if it did; otherwise
// text that is not RFC 8259 JSON is refused with the offset where it breaks.
template <typename Handler>
Status ReadJson(std::string_view json, Handler& handler) {
  rapidjson::MemoryStream stream(json.data(), json.size());
  rapidjson::Reader reader;
  const rapidjson::ParseResult result = reader.Parse<kReaderFlags>(stream, handler);
  if (!handler.error().empty()) return Status(StatusCode::INVALID_ARGUMENT, handler.error());
  size_t offset = result.Offset();
  std::string what = result.IsError() ? rapidjson::GetParseError_En(result.Code()) : "";
  // The stream reads a NUL as the end of the text.
  if (!result.IsError() && stream.Tell() != json.size()) {
    offset = stream.Tell();
    what = "The document root must not be followed by other values.";
  }
  if (what.empty()) return Status::Ok();
  return Status(StatusCode::INVALID_ARGUMENT,
                "invalid JSON at offset " + std::to_string(offset) + ": " + what);
}

// Why the level past kMaxJsonDepth is refused.
inline std::string TooDeep() {
  return "nested deeper than " + std::to_string(kMaxJsonDepth) + " objects and arrays";
}

}  // namespace ferry::codec::json
