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
// "scheme://user:password@host..." replaced by "<redacted>" ("scheme://<redacted>@host...").
// Anything else is returned as it is.
std::string RedactedUrl(std::string_view url);

}  // namespace ferry
