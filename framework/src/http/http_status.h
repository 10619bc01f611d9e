#pragma once

#include <string>

#include "ferry/codec/status.h"

namespace ferry::http {

// How a call's status is answered over HTTP (docs/http.md has the table): the HTTP status, and
// whether a Retry-After tells the client to come back (rate limits, overload, draining).
struct HttpStatusOf {
  int status;
  bool retry_after;
};
HttpStatusOf HttpStatusFor(StatusCode code);

// The status an HTTP answer stands for, for filters that see a route's outcome (an access log,
// error counts): 1xx-3xx OK, and the codes HttpStatusFor answers with as their status (410 is
// NOT_FOUND, any other 4xx INVALID_ARGUMENT, any other 5xx INTERNAL).
StatusCode StatusCodeOfHttp(int status);

// {"code":"NOT_FOUND","message":"..."}: the JSON error body of every failed call or request.
std::string ErrorJson(StatusCode code, std::string_view message);

// `text` as a JSON string literal, quotes included, and valid UTF-8 whatever `text` holds: each
// byte that is not part of a well-formed UTF-8 sequence is written as \ufffd.
std::string JsonQuoted(std::string_view text);

}  // namespace ferry::http
