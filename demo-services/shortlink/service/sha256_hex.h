#pragma once

#include <string>
#include <string_view>

namespace ferry::shortlink {

// SHA-256 of `data` as 64 lower-case hex digits.
std::string Sha256Hex(std::string_view data);

}  // namespace ferry::shortlink
