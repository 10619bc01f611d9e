#pragma once

// The fixture of the seckill provider's end-to-end tests (the seckill_service_test binary, one
// file per concern): SeckillApp (handlers, order writer, order closer) behind an in-process
// ferry::Server, called through the generated SeckillServiceProxy, over both backends: embedded
// (SQLite in a temporary directory) and redis+mariadb (a real Redis and a real MariaDB, one of
// each per test process). The suite is instantiated once, in seckill_service_fixture.cc.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>

#include "seckill_test_support.h"

namespace ferry::seckill::testing {

enum class Backend { kEmbedded, kRedisMariaDb };

class SeckillServiceTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (GetParam() == Backend::kEmbedded) {
      config_ = EmbeddedConfig(dir_.path());
    } else {
      ASSERT_NO_FATAL_FAILURE(SharedServers::Start());
      ASSERT_TRUE(SharedServers::FlushRedis());
      config_ = RedisMariaDbConfig(FreshDatabaseName("service"));
    }
  }
  void TearDown() override { provider_.Stop(); }

  void StartProvider() { ASSERT_NO_FATAL_FAILURE(provider_.Start(config_)); }
  SeckillServiceProxy& proxy() { return provider_.proxy(); }
  OrderStore& store() { return *provider_.app().core().deps.store; }
  bool cached() const { return GetParam() == Backend::kRedisMariaDb; }

  PurchaseAnswer Buy(int64_t activity_id, const std::string& user, const std::string& request,
                     int64_t sku_id = 77) {
    auto r = proxy().Purchase(Purchase(activity_id, sku_id, user, request));
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? r->answer() : PURCHASE_ANSWER_UNSPECIFIED;
  }

  static ActivityRef Ref(int64_t id) {
    ActivityRef ref;
    ref.set_activity_id(id);
    return ref;
  }

  // (database stock, cache stock) as Reconcile reports them (cache -1: none, or not current).
  using Stocks = std::pair<int64_t, int64_t>;
  Stocks StocksOf(int64_t id) {
    auto report = proxy().Reconcile(Ref(id));
    EXPECT_TRUE(report.ok()) << report.status();
    return report.ok() ? Stocks(report->database_stock(), report->cache_stock()) : Stocks(-2, -2);
  }

  OrderState StateOf(int64_t order_no) {
    OrderRecord order;
    Status s = store().GetOrder(order_no, &order);
    EXPECT_TRUE(s.ok()) << s;
    return order.state;
  }

  TempDir dir_;
  SeckillConfig config_;
  InProcessProvider provider_;
};

}  // namespace ferry::seckill::testing
