#pragma once

#include <gtest/gtest.h>

#include <string>

#include "mariadb_server.h"
#include "redis_server.h"

namespace ferry::testsupport {

// One Redis and one MariaDB per test process for the services' redis+mariadb tests, started on
// first use and stopped at exit. Redis keeps an append-only file fsynced every second, as the
// services' backends are meant to run (and as seckill checks at start-up).
class SharedServers {
 public:
  // Starts them if needed; a fatal gtest failure when they cannot start.
  static void Start();
  static RedisServer& redis();
  static MariaDbServer& mariadb();
  // Deletes every key.
  static ::testing::AssertionResult FlushRedis();
};

// A database name not used before in this process.
std::string FreshDatabaseName(const std::string& prefix);

}  // namespace ferry::testsupport
