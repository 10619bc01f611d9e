#pragma once

#include <optional>

#include "filter_config.h"
#include "token_bucket.h"

namespace ferry::plugins {

// Reads `{rate: <per second>, burst: <calls>}`; burst defaults to one second's worth.
// nullopt (with the error recorded in `section`) when invalid.
std::optional<RateLimit> ReadRateLimit(FilterConfig section);

}  // namespace ferry::plugins
