#include "rate_limit_config.h"

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string_view>

namespace ferry::plugins {

namespace {

constexpr int64_t kMaxBurst = int64_t{1} << 30;

// `rate_missing`: what to say when rate is absent, which depends on what else the entry may hold.
RateLimit ReadRateAndBurst(config::ConfigReader& section, std::string_view rate_missing,
                           bool has_store) {
  if (!section.Has("rate")) section.Invalid("rate", rate_missing);
  RateLimit limit;
  section.DoubleAbove("rate", 0, &limit.rate);
  int64_t burst = std::max<int64_t>(1, static_cast<int64_t>(limit.rate));
  section.Integer("burst", 1, kMaxBurst, &burst);
  limit.burst = static_cast<double>(burst);
  std::ostringstream description;
  description << limit.rate << "/s, burst " << burst;
  limit.description = description.str();
  limit.shared = has_store;
  section.Bool("shared", &limit.shared);
  if (limit.shared && !has_store) {
    section.Invalid("shared",
                    "a shared limit needs the filter's store: {kind: redis, ...} (docs/plugins.md, "
                    "ratelimit)");
  }
  return limit;
}

}  // namespace

std::optional<RateLimit> ReadRateLimit(config::ConfigReader section, bool has_store) {
  const bool valid_before = section.errors()->first().ok();
  RateLimit limit = ReadRateAndBurst(section, "must be set", has_store);
  section.RejectUnknownKeys();
  if (valid_before && !section.errors()->first().ok()) return std::nullopt;
  return limit;
}

std::optional<MethodRateLimit> ReadMethodRateLimit(config::ConfigReader section, bool has_store) {
  const bool valid_before = section.errors()->first().ok();
  MethodRateLimit limits;
  const bool per_peer = section.Has("per_peer");
  if (per_peer) limits.per_peer = ReadRateLimit(section.Section("per_peer"), has_store);
  // A burst alone is more likely the per-address one misplaced than a shared bucket meant.
  if (!per_peer || section.Has("rate") || section.Has("burst")) {
    limits.shared = ReadRateAndBurst(
        section,
        per_peer ? "must be set with burst (the method's shared bucket; the burst of "
                   "each client address goes inside per_peer)"
                 : "must be set (the method's shared bucket), or per_peer: {rate, "
                   "burst} (a bucket per client address)",
        has_store);
  }
  section.RejectUnknownKeys();
  if (valid_before && !section.errors()->first().ok()) return std::nullopt;
  return limits;
}

}  // namespace ferry::plugins
