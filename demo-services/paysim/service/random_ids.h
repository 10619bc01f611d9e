#pragma once

#include <string>
#include <string_view>

namespace ferry::paysim {

// `prefix` and `bytes` random bytes in hex, from the operating system's generator: checkout
// tokens are the buyer's only credential, so they must not be guessable.
std::string RandomId(std::string_view prefix, int bytes);

}  // namespace ferry::paysim
