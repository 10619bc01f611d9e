#pragma once

#include <string>

#include "ferry/framework/config_reader.h"
#include "ferry/storage/redis_connection_pool.h"

namespace ferry::redis_filters {

// What a filter's Redis store reads: `address: host:port` (required), `namespace` (required:
// every key starts with it, so that two services on one Redis never share a bucket or a
// revocation by accident), `connections` (4) and `timeout_ms` (100: a limiter that waits a
// second for a dead Redis slows every call).
struct RedisEndpoint {
  storage::RedisOptions options;
  std::string key_namespace;
};

void ReadRedisEndpoint(config::ConfigReader& config, RedisEndpoint* out);

}  // namespace ferry::redis_filters
