#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ferry/codec/status.h"
#include "ferry/storage/backend_config.h"
#include "ferry/storage/redis_connection_pool.h"

namespace ferry::storage {

// Reads the Redis settings that decide whether what a service keeps only in Redis survives it
// (CONFIG GET appendonly, appendfsync, maxmemory-policy) and describes, one sentence each, the
// ones that can lose it: no append-only file, an append-only file never fsynced
// (`appendfsync no`), or a policy evicting keys without a TTL (`allkeys-*`; `volatile-*` and
// `noeviction` keep them). `at_stake` names what is lost, e.g. "reservations not yet written
// as orders"; it is the subject of each sentence. `expiring_at_stake`, when not empty, names
// what the service keeps in keys with a TTL that must live their whole TTL (e.g. request ids
// remembered for retries): then `volatile-*` policies, which evict exactly those keys first,
// are a risk too. No risk: `risks` empty.
// The status of the pool, or of Redis's error reply (e.g. CONFIG renamed away), when the
// settings cannot be read.
Status RedisPersistenceRisks(RedisConnectionPool& pool, std::string_view at_stake,
                             std::vector<std::string>* risks,
                             std::string_view expiring_at_stake = {});

// A service's start-up check of the Redis in `config`, before it creates anything there, per
// `config.redis_persistence_check`: `warn` logs each risk (prefixed by `service`) and returns
// OK; `refuse` returns FAILED_PRECONDITION naming Redis, the risks and the key to change
// (service.redis.persistence_check). Settings that cannot be read are warned about, or refused.
// A Redis that cannot be reached is left to the service's own connect (logged, OK).
Status CheckRedisPersistence(const BackendConfig& config, std::string_view service,
                             std::string_view at_stake, std::string_view expiring_at_stake = {});

}  // namespace ferry::storage
