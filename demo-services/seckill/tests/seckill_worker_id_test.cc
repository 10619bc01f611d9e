// Where a provider's order-number worker id comes from: a fixed idgen.worker_id, a lease from
// ZooKeeper (idgen.zookeeper or the registry), or, for the embedded backend alone, 0. Providers
// sharing a database are refused a default, since every replica would get the same one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>

#include "ferry/framework/config.h"
#include "ferry/idgen/id_layout.h"
#include "seckill_test_support.h"
#include "zookeeper_server.h"

namespace ferry::seckill {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using namespace ferry::seckill::testing;

Status Read(const std::string& yaml, SeckillConfig* out) {
  Config c;
  const Status parsed = ParseConfig(yaml, "seckill.yaml", &c);
  EXPECT_TRUE(parsed.ok()) << parsed;
  return ReadServiceSection(
      c, [&](config::ConfigReader& service) { ReadSeckillConfig(service, out); });
}

TEST(SeckillWorkerIdTest, ConfigTakesAWorkerIdOrAZooKeeperToLeaseFrom) {
  SeckillConfig fixed;
  ASSERT_TRUE(Read("service:\n  idgen: {worker_id: 7}\n", &fixed).ok());
  EXPECT_EQ(fixed.worker_id, 7);
  SeckillConfig leased;
  ASSERT_TRUE(Read("service:\n  idgen: {zookeeper: 'zookeeper://127.0.0.1:2181'}\n", &leased).ok());
  EXPECT_EQ(leased.worker_id, -1);
  EXPECT_EQ(leased.worker_id_zookeeper, "zookeeper://127.0.0.1:2181");
  SeckillConfig both;
  EXPECT_EQ(Read("service:\n  idgen:\n    worker_id: 1\n    zookeeper: zookeeper://h:1\n", &both)
                .message(),
            "seckill.yaml:4: service.idgen.zookeeper: set either worker_id or zookeeper, not both");
  SeckillConfig not_zookeeper;
  EXPECT_EQ(Read("service:\n  idgen:\n    zookeeper: static://h:1\n", &not_zookeeper).message(),
            "seckill.yaml:3: service.idgen.zookeeper: expected a zookeeper:// URL, got "
            "'static://h:1'");
}

TEST(SeckillWorkerIdTest, ASharedDatabaseWithNeitherAWorkerIdNorALeaseIsRefused) {
  ASSERT_NO_FATAL_FAILURE(SharedServers::Start());
  SeckillConfig config = RedisMariaDbConfig(FreshDatabaseName("worker"));
  config.worker_id = -1;
  for (const std::string registry : {"", "static://127.0.0.1:7001"}) {
    std::unique_ptr<SeckillApp> app;
    const Status s = SeckillApp::Create(config, registry, &app);
    EXPECT_EQ(s.code(), StatusCode::INVALID_ARGUMENT) << registry << ": " << s;
    EXPECT_THAT(s.message(), AllOf(HasSubstr("service.idgen"), HasSubstr("zookeeper://"),
                                   HasSubstr("idgen.worker_id")));
    EXPECT_EQ(app, nullptr);
  }
  // Alone on its SQLite file, an embedded provider needs no worker id of its own.
  TempDir dir;
  SeckillConfig embedded = EmbeddedConfig(dir.path());
  embedded.worker_id = -1;
  std::unique_ptr<SeckillApp> app;
  const Status s = SeckillApp::Create(embedded, "", &app);
  ASSERT_TRUE(s.ok()) << s;
  app->Stop();
}

// An order consumer is not registered, yet still leases: two providers given only
// idgen.zookeeper issue order numbers under two different worker ids.
TEST(SeckillWorkerIdTest, ProvidersGivenIdgenZooKeeperLeaseDistinctWorkerIds) {
  ASSERT_NO_FATAL_FAILURE(SharedServers::Start());
  ASSERT_TRUE(SharedServers::FlushRedis());
  testsupport::ZooKeeperServer zookeeper;
  ASSERT_TRUE(zookeeper.Start());
  SeckillConfig config = RedisMariaDbConfig(FreshDatabaseName("worker"));
  config.worker_id = -1;
  config.worker_id_zookeeper = zookeeper.url();
  InProcessProvider first;
  InProcessProvider second;
  ASSERT_NO_FATAL_FAILURE(first.Start(config));
  ASSERT_NO_FATAL_FAILURE(second.Start(config));
  constexpr int64_t kSku = 5;
  const int64_t activity = CreateActivity(first.proxy(), {.sku_id = kSku, .stock = 2});
  ASSERT_GT(activity, 0);
  std::set<uint32_t> worker_ids;
  int n = 0;
  for (InProcessProvider* provider : {&first, &second}) {
    const std::string user = "w" + std::to_string(++n);
    auto r = provider->proxy().Purchase(Purchase(activity, kSku, user, user + "-r"));
    ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_EQ(r->answer(), ACCEPTED);
    GetResultRequest query;
    query.set_request_id(user + "-r");
    query.set_activity_id(activity);
    query.set_sku_id(kSku);
    query.set_user_id(user);
    int64_t order_no = 0;
    ASSERT_TRUE(Eventually([&] {
      auto result = provider->proxy().GetResult(query);
      order_no = result.ok() && result->state() == CREATED ? result->order_no() : 0;
      return order_no != 0;
    }));
    worker_ids.insert(idgen::DecodeId(order_no)->worker_id);
  }
  EXPECT_EQ(worker_ids.size(), 2u);
}

}  // namespace
}  // namespace ferry::seckill
