#pragma once

// What the Redis tests share: the test process's Redis server, and a pool's replies as text.

#include <string>
#include <vector>

#include "ferry/storage/redis_connection_pool.h"
#include "redis_server.h"

namespace ferry::storage::testing {

// The Redis server of this test process, started on first use (null, with a gtest failure,
// when it cannot start) and emptied by FLUSHALL on every call.
testsupport::RedisServer* SharedRedis();

RedisOptions OptionsFor(const testsupport::RedisServer& server, int pool_size = 4,
                        int timeout_ms = 5000);

// The reply to `args` as text: a string or status, an integer in decimal, "(nil)",
// "ERR:<message>", or "FAILED:<status>" when the pool failed.
std::string RunText(RedisConnectionPool& pool, const std::vector<std::string>& args);
std::string ReplyAsText(const RedisReplyPtr& reply);

// A field of INFO's output, e.g. InfoField(pool, "clients", "connected_clients").
std::string InfoField(RedisConnectionPool& pool, const std::string& section,
                      const std::string& field);

}  // namespace ferry::storage::testing
