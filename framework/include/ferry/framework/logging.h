#pragma once

#include <string>
#include <string_view>

#include "ferry/codec/status.h"

namespace spdlog {
class logger;
}

namespace ferry {

// The logger every Ferry library logs through, so that SetLogLevel() governs every line; safe
// to call from any thread. It is whatever spdlog's registry holds under the name "ferry" at
// the time of the call: a logger the application registers there, before or after Ferry's
// first line (after spdlog::drop("ferry"), say, to send Ferry's lines to a file), is used from
// then on. With none registered, the first call registers Ferry's own on stderr; once one has
// been used and is dropped from the registry (spdlog::drop_all(), spdlog::shutdown()), Ferry
// goes on logging to it. Never spdlog's default logger: that one writes to stdout, which
// providers keep for their ready line. Each logger returned stays valid for the process.
// Looked up on every call, so meant for events, not for a per-request path.
spdlog::logger& Logger();

// Sets the level of Logger(). INVALID_ARGUMENT on an unknown level name.
Status SetLogLevel(std::string_view level);

// `url` as logs, error messages and pages may show it: the user information of
// "scheme://user:password@host..." replaced by "<redacted>" ("scheme://<redacted>@host..."), and
// so the credentials of a DSN without a scheme, a word (no spaces) with a ':' before its last '@'
// ("app:pw@tcp(db:3306)/shop" is "<redacted>@tcp(db:3306)/shop"). Anything else is returned as
// it is.
std::string RedactedUrl(std::string_view url);

// Appends `text` to `*out` so that a log line stays one line, with fields that cannot be
// mistaken for others, whoever chose the text (a peer's method name or trace id, a JSON key in
// an error): '\\' and '"' are escaped with a backslash, as are '\n', '\r' and '\t'; other control
// characters (C0, DEL, C1), U+2028, U+2029 and bytes that are not UTF-8 are written as \xHH, one
// per byte. Other UTF-8 is kept. `word`: spaces are written as \x20 too, for the value of a
// `key=value` field that is not quoted.
void AppendLogEscaped(std::string_view text, std::string* out, bool word = false);
std::string LogEscaped(std::string_view text, bool word = false);

}  // namespace ferry
