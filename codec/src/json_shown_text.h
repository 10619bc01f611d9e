#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ferry::codec::json {

// `text` as an error message may quote it: what would make a log line lie is escaped
// (backslash, the double quote, control characters, the line and paragraph separators, bidi
// overrides: `\n`, `\u2028`; bytes that are not UTF-8 as `\xff`), and it is cut after
// `max_bytes` of `text` with "..." (a key or a value may be megabytes long).
std::string ShownText(std::string_view text, size_t max_bytes);

}  // namespace ferry::codec::json
