#pragma once

#include <string>
#include <vector>

#include "ferry/codec/status.h"
#include "ferry/storage/redis_connection_pool.h"

namespace ferry::seckill {

// Reads the Redis settings an ACCEPTED reservation relies on until its order is written
// (CONFIG GET appendonly, appendfsync, maxmemory-policy) and describes, one sentence each, the
// ones that can lose it: no append-only file, an append-only file never fsynced
// (`appendfsync no`), or a policy evicting keys without a TTL (`allkeys-*`; the reservation
// keys have none, so `volatile-*` and `noeviction` keep them). No risk: `risks` empty.
// The status of the pool, or of Redis's error reply (e.g. CONFIG renamed away), when the
// settings cannot be read.
Status CheckRedisPersistence(storage::RedisConnectionPool& pool, std::vector<std::string>* risks);

}  // namespace ferry::seckill
