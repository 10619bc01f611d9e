#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ferry/codec/status.h"

namespace ferry::shortlink {

// 0-9, a-z, A-Z: the digits of generated codes.
inline constexpr std::string_view kBase62Alphabet =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

// `id` (> 0) in Base62, as long as it needs to be: never truncated, so distinct ids give
// distinct codes.
std::string Base62(int64_t id);

// Words that name the server's own pages or are kept for them (health, metrics, status, api,
// ...), compared case-insensitively: never a code, custom or generated.
bool IsReservedCode(std::string_view code);

// A custom code: 3 to 64 characters of [0-9A-Za-z_-], not reserved. INVALID_ARGUMENT saying
// which rule it breaks.
Status ValidateCustomCode(std::string_view code);

// Whether a path segment can be a code at all (the redirect answers 404 without a lookup).
bool LooksLikeCode(std::string_view segment);

}  // namespace ferry::shortlink
