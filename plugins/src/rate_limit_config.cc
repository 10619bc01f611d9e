#include "rate_limit_config.h"

#include <algorithm>
#include <cstdint>
#include <sstream>

namespace ferry::plugins {

namespace {
constexpr int64_t kMaxBurst = int64_t{1} << 30;
}  // namespace

std::optional<RateLimit> ReadRateLimit(config::ConfigReader section) {
  const bool valid_before = section.errors()->first().ok();
  if (!section.Has("rate")) section.Invalid("rate", "must be set");
  RateLimit limit;
  section.DoubleAbove("rate", 0, &limit.rate);
  int64_t burst = std::max<int64_t>(1, static_cast<int64_t>(limit.rate));
  section.Integer("burst", 1, kMaxBurst, &burst);
  section.RejectUnknownKeys();
  if (valid_before && !section.errors()->first().ok()) return std::nullopt;
  limit.burst = static_cast<double>(burst);
  std::ostringstream description;
  description << limit.rate << "/s, burst " << burst;
  limit.description = description.str();
  return limit;
}

}  // namespace ferry::plugins
