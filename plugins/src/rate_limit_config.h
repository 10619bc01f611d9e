#pragma once

#include <optional>

#include "ferry/framework/config_reader.h"
#include "token_bucket.h"

namespace ferry::plugins {

// Reads `{rate: <per second>, burst: <calls>, shared: <bool>}`; burst defaults to one second's
// worth, shared to whether the filter has a store (`has_store`), and shared: true without one
// is a mistake. nullopt (with the error recorded through `section`) when invalid.
std::optional<RateLimit> ReadRateLimit(config::ConfigReader section, bool has_store);

// An entry of `methods:`: the method's shared bucket, and a bucket per client address of the
// method alone.
struct MethodRateLimit {
  std::optional<RateLimit> shared;    // none: per_method's, if set
  std::optional<RateLimit> per_peer;  // none: no per-address bucket of the method's own
};

// Reads `{rate, burst, per_peer: {rate, burst}}`, where rate (and so the shared bucket) may be
// left out when per_peer is given. nullopt (with the error recorded) when invalid.
std::optional<MethodRateLimit> ReadMethodRateLimit(config::ConfigReader section, bool has_store);

}  // namespace ferry::plugins
