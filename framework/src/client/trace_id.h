#pragma once

#include <cstddef>
#include <string>

namespace ferry::client {

inline constexpr size_t kTraceIdLength = 16;

// Replaces `*out` with a random id of kTraceIdLength lowercase hex digits. Reuses out's
// capacity, so filling a recycled string allocates nothing.
void FillRandomTraceId(std::string* out);

}  // namespace ferry::client
