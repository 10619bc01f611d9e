#pragma once

#include <memory>
#include <optional>

#include "ferry/plugins/rate_limit_store.h"
#include "ferry/storage/redis_connection_pool.h"
#include "ferry/storage/redis_script_set.h"
#include "redis_endpoint.h"
#include "retry_gate.h"

namespace ferry::redis_filters {

// The `ratelimit` store of kind "redis": each bucket is one Redis key holding the generic cell
// rate algorithm's "theoretical arrival time" (the moment the bucket is full again), moved by
// one Lua script per take. The script reads the time from Redis (TIME), so providers' clocks
// play no part, and sets the key to expire when the bucket is full again, so idle buckets cost
// nothing. Keys are `<namespace>:ratelimit:{<limit>:<bucket>}`: the hash tag keeps each in one
// slot of a cluster. The takes of one call go in one pipeline (one round trip).
class RedisRateLimitStore final : public plugins::RateLimitStore {
 public:
  void Configure(config::ConfigReader& config) override;
  void TryTake(std::span<const plugins::SharedTake> takes,
               std::span<plugins::TakeVerdict> verdicts) override;

 private:
  RedisEndpoint endpoint_;
  std::unique_ptr<storage::RedisConnectionPool> pool_;
  std::unique_ptr<storage::RedisScriptSet> scripts_;
  std::optional<RetryGate> gate_;
};

}  // namespace ferry::redis_filters
