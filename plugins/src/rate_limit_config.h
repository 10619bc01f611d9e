#pragma once

#include <optional>

#include "ferry/framework/config_reader.h"
#include "token_bucket.h"

namespace ferry::plugins {

// Reads `{rate: <per second>, burst: <calls>}`; burst defaults to one second's worth.
// nullopt (with the error recorded through `section`) when invalid.
std::optional<RateLimit> ReadRateLimit(config::ConfigReader section);

}  // namespace ferry::plugins
