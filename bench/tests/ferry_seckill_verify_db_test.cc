// ferry-bench seckill --verify-db mariadb against an in-process provider on the redis+mariadb
// backend, its Redis and MariaDB real servers from tests/support on loopback.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <memory>
#include <sstream>
#include <string>

#include "in_process_provider.h"
#include "mariadb_server.h"
#include "redis_server.h"
#include "seckill_command.h"
#include "seckill_small_sale.h"
#include "service/seckill_app.h"
#include "user_token_server_options.h"

namespace ferry::bench {
namespace {

using ::testing::HasSubstr;

TEST(SeckillVerifyDbTest, VerifyDbReadsTheMariaDbOrdersTheOrderWriterWrote) {
  testsupport::RedisServer redis({.appendonly = true, .extra_args = {"--appendfsync", "everysec"}});
  ASSERT_TRUE(redis.Start());
  testsupport::MariaDbServer mariadb;
  ASSERT_TRUE(mariadb.Start());
  seckill::SeckillConfig config;
  config.backend = "redis+mariadb";
  config.redis_host = redis.host();
  config.redis_port = redis.port();
  config.redis_persistence_check = "refuse";
  config.mariadb.host = mariadb.host();
  config.mariadb.port = mariadb.port();
  config.mariadb.user = mariadb.user();
  config.mariadb.password = mariadb.password();
  config.mariadb.database = "verify_" + std::to_string(getpid());
  config.mariadb.timeout_ms = 20000;
  config.worker_id = 1;
  config.reconcile_interval_ms = 0;
  std::unique_ptr<seckill::SeckillApp> app;
  const Status created = seckill::SeckillApp::Create(config, "", &app);
  ASSERT_TRUE(created.ok()) << created;

  InProcessProvider provider(app->services(), VerifyingUserTokens());
  SeckillBenchOptions options = SmallSale(provider.target());
  options.duration_limit_s = 60;
  options.settle_timeout_s = 30;
  options.database.kind = "mariadb";
  options.database.host = mariadb.host();
  options.database.port = mariadb.port();
  options.database.user = mariadb.user();
  options.database.password = mariadb.password();
  options.database.database = config.mariadb.database;
  std::ostringstream out;
  std::ostringstream err;
  SeckillBenchOutcome outcome;
  const int exit_code = RunSeckillBench(options, out, err, &outcome);
  provider.Stop();
  app->Stop();

  EXPECT_EQ(exit_code, 0) << out.str() << err.str();
  ASSERT_TRUE(outcome.database_read) << out.str();
  EXPECT_EQ(outcome.database.initial_stock, 5);
  EXPECT_EQ(outcome.database.unpaid, 5);
  EXPECT_EQ(outcome.database.remaining, 0);
  EXPECT_EQ(outcome.database.accepted_without_order, 0);
  EXPECT_EQ(outcome.database.accepted_order_of_another_user, 0);
  EXPECT_THAT(out.str(), HasSubstr("database (mariadb): orders=5 "));
}

}  // namespace
}  // namespace ferry::bench
