#include "shared_servers.h"

#include <hiredis.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>

namespace ferry::testsupport {
namespace {

RedisServer* g_redis = nullptr;
MariaDbServer* g_mariadb = nullptr;

void StopSharedServers() {
  delete g_redis;
  g_redis = nullptr;
  delete g_mariadb;
  g_mariadb = nullptr;
}

}  // namespace

void SharedServers::Start() {
  if (g_redis == nullptr) {
    g_redis = new RedisServer({.appendonly = true, .extra_args = {"--appendfsync", "everysec"}});
    g_mariadb = new MariaDbServer();
    std::atexit(StopSharedServers);
  }
  ASSERT_TRUE(g_redis->Start());
  ASSERT_TRUE(g_mariadb->Start());
}

RedisServer& SharedServers::redis() { return *g_redis; }
MariaDbServer& SharedServers::mariadb() { return *g_mariadb; }

::testing::AssertionResult SharedServers::FlushRedis() {
  const timeval timeout{.tv_sec = 5, .tv_usec = 0};
  redisContext* c = redisConnectWithTimeout(g_redis->host().c_str(), g_redis->port(), timeout);
  if (c == nullptr || c->err != 0) {
    if (c != nullptr) redisFree(c);
    return ::testing::AssertionFailure() << "cannot connect to Redis at " << g_redis->address();
  }
  auto* reply = static_cast<redisReply*>(redisCommand(c, "FLUSHALL"));
  const bool ok = reply != nullptr && reply->type == REDIS_REPLY_STATUS;
  if (reply != nullptr) freeReplyObject(reply);
  redisFree(c);
  if (!ok) return ::testing::AssertionFailure() << "FLUSHALL failed";
  return ::testing::AssertionSuccess();
}

std::string FreshDatabaseName(const std::string& prefix) {
  static std::atomic<int> counter{0};
  return prefix + "_" + std::to_string(::getpid()) + "_" + std::to_string(++counter);
}

}  // namespace ferry::testsupport
