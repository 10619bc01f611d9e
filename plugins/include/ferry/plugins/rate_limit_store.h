#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "ferry/framework/config_reader.h"

namespace ferry::plugins {

// One token to take from a bucket of a limit the `ratelimit` filter shares between providers.
struct SharedTake {
  // The limit, as the filter names it: "per_user", "per_method:<service>/<method>",
  // "per_field:<service>/<method>:<field>", ...; with `key`, it names the bucket.
  std::string_view limit;
  std::string_view key;  // the caller, user, address or field value
  double rate = 0;       // tokens per second
  double burst = 0;      // capacity
};

enum class TakeVerdict : uint8_t {
  kTaken,
  kRefused,      // the bucket is empty
  kUnavailable,  // the store could not tell: the filter applies its on_unavailable policy
};

// Where the `ratelimit` filter keeps the buckets of its shared limits (`store: {kind: ...}`), so
// that every provider pointing at the same store takes from the same buckets: N providers
// together allow a limit's rate, not N times it. Registered by kind ("local": in-process, as
// if unshared; "redis": ferry::redis_filters); one instance per filter, called concurrently
// from the server's worker threads, where waiting for a round trip is allowed.
class RateLimitStore {
 public:
  static constexpr std::string_view kExtensionKind = "rate_limit_store";

  virtual ~RateLimitStore() = default;
  // Reads the store's own keys of the `store:` mapping (`kind` and `on_unavailable` are the
  // filter's), reporting mistakes through `config`. Called once, before any take.
  virtual void Configure(config::ConfigReader& config) = 0;
  // A verdict for each take, in order (verdicts.size() == takes.size()); takes are independent:
  // one refused does not give back the others.
  virtual void TryTake(std::span<const SharedTake> takes, std::span<TakeVerdict> verdicts) = 0;
};

}  // namespace ferry::plugins
