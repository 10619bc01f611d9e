#include "http/http_status.h"

#include <cstdint>
#include <cstdio>

#include "ferry/codec/utf8.h"

namespace ferry::http {

HttpStatusOf HttpStatusFor(StatusCode code) {
  switch (code) {
    case StatusCode::OK:
      return {200, false};
    case StatusCode::CANCELLED:
      return {499, false};  // nginx's "client closed request"
    case StatusCode::INVALID_ARGUMENT:
    case StatusCode::FAILED_PRECONDITION:
    case StatusCode::OUT_OF_RANGE:
      return {400, false};
    case StatusCode::DEADLINE_EXCEEDED:
      return {504, false};
    case StatusCode::NOT_FOUND:
      return {404, false};
    case StatusCode::ALREADY_EXISTS:
    case StatusCode::ABORTED:
      return {409, false};
    case StatusCode::PERMISSION_DENIED:
      return {403, false};
    case StatusCode::UNAUTHENTICATED:
      return {401, false};
    case StatusCode::RESOURCE_EXHAUSTED:
      return {429, true};
    case StatusCode::UNIMPLEMENTED:
      return {501, false};
    case StatusCode::UNAVAILABLE:
    case StatusCode::OVERLOADED:
    case StatusCode::DRAINING:
      return {503, true};
    case StatusCode::UNKNOWN:
    case StatusCode::INTERNAL:
    case StatusCode::DATA_LOSS:
      return {500, false};
  }
  return {500, false};
}

StatusCode StatusCodeOfHttp(int status) {
  if (status < 400) return StatusCode::OK;
  switch (status) {
    case 401:
      return StatusCode::UNAUTHENTICATED;
    case 403:
      return StatusCode::PERMISSION_DENIED;
    case 404:
    case 410:
      return StatusCode::NOT_FOUND;
    case 409:
      return StatusCode::ALREADY_EXISTS;
    case 429:
      return StatusCode::RESOURCE_EXHAUSTED;
    case 499:
      return StatusCode::CANCELLED;
    case 501:
      return StatusCode::UNIMPLEMENTED;
    case 503:
      return StatusCode::UNAVAILABLE;
    case 504:
      return StatusCode::DEADLINE_EXCEEDED;
    default:
      return status < 500 ? StatusCode::INVALID_ARGUMENT : StatusCode::INTERNAL;
  }
}

std::string JsonQuoted(std::string_view text) {
  std::string out = "\"";
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (static_cast<unsigned char>(c) >= 0x80) {
      // JSON is UTF-8 (RFC 8259): a byte that is not is shown as U+FFFD, as a decoder would show
      // it, so that a peer's bytes never make the whole document unreadable.
      uint32_t code_point = 0;
      const size_t length = codec::Utf8SequenceLength(text, i, &code_point);
      if (length == 0) {
        out += "\\ufffd";
        ++i;
      } else if (code_point == 0x2028 || code_point == 0x2029) {
        // Valid JSON, but line ends to JavaScript before ES2019.
        out += code_point == 0x2028 ? "\\u2028" : "\\u2029";
        i += length;
      } else {
        out.append(text.substr(i, length));
        i += length;
      }
      continue;
    }
    ++i;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
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
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned char>(c));
          out += escaped;
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

std::string ErrorJson(StatusCode code, std::string_view message) {
  return "{\"code\":" + JsonQuoted(StatusCodeName(code)) + ",\"message\":" + JsonQuoted(message) +
         "}";
}

}  // namespace ferry::http
