// The cache's generation, against a real Redis and MariaDB: a Redis restored from an older copy
// or holding a reused activity id's keys closes the sale until preheated; a reload never counts
// a unit twice; Reconcile reports where the cache and the database disagree.
#include "seckill_failure_fixture.h"

namespace ferry::seckill::failure_test {
namespace {

TEST_F(SeckillFailureTest, RedisRestoredFromAnOlderCopyIsClosedUntilPreheated) {
  HandBuiltProvider provider(config_);
  const int64_t id = provider.CreateOpenActivity(6);
  ASSERT_GT(id, 0);
  OrderWriter writer(provider.core(), {.consumer = "w", .batch = 16, .claim_idle_ms = 1000});
  ASSERT_EQ(provider.Buy(id, "a0"), ACCEPTED);
  ASSERT_EQ(provider.Buy(id, "a1"), ACCEPTED);
  ASSERT_TRUE(WrittenUntil(provider, writer, id, 2));

  // A copy of Redis's data now (stopped cleanly, so its append-only file is complete)...
  testsupport::RedisServer& redis = SharedServers::redis();
  const std::filesystem::path copy = redis.dir() / "older-copy";
  redis.Stop();
  std::filesystem::remove_all(copy);
  std::filesystem::copy(redis.data_dir(), copy, std::filesystem::copy_options::recursive);
  ASSERT_TRUE(redis.Start());
  // ...two more sales written...
  ASSERT_EQ(provider.Buy(id, "a2"), ACCEPTED);
  ASSERT_EQ(provider.Buy(id, "a3"), ACCEPTED);
  ASSERT_TRUE(WrittenUntil(provider, writer, id, 4));
  // ...and Redis restored from the copy: its loaded marker and generation are intact, its stock
  // says 4 and it knows neither a2 nor a3.
  redis.Stop();
  std::filesystem::remove_all(redis.data_dir());
  std::filesystem::copy(copy, redis.data_dir(), std::filesystem::copy_options::recursive);
  ASSERT_TRUE(redis.Start());
  ASSERT_EQ(RawRedis({"GET", StockKey(id)}), "4");

  const ReconcileResponse found = provider.Reconcile(id);
  EXPECT_FALSE(found.invariants_hold());
  ASSERT_GE(found.violations_size(), 1);
  EXPECT_NE(found.violations(0).find("lost reservations"), std::string::npos)
      << found.ShortDebugString();
  EXPECT_EQ(found.cache_stock(), -1);
  // Closed: new buyers and the buyers the copy forgot alike.
  for (const char* user : {"n0", "a2", "n1"}) {
    PurchaseAnswer answer = SOLD_OUT;
    const Status s = provider.TryBuy(id, user, std::string(user) + "-closed", &answer);
    EXPECT_EQ(s.code(), StatusCode::UNAVAILABLE) << user << ": " << PurchaseAnswer_Name(answer);
    EXPECT_NE(s.message().find("preheat"), std::string::npos) << s;
  }
  EXPECT_FALSE(provider.Reconcile(id).invariants_hold());

  // Preheated again: the database's two units, and the buyers it knows stay refused.
  const PreheatResponse reopened = provider.Preheat(id);
  EXPECT_FALSE(reopened.already_open());
  EXPECT_EQ(reopened.cached_stock(), 2);
  EXPECT_TRUE(provider.Preheat(id).already_open());
  EXPECT_EQ(provider.Buy(id, "a2", "a2-again"), ALREADY_JOINED);
  EXPECT_EQ(provider.Buy(id, "n0", "n0-closed"), ACCEPTED);
  EXPECT_EQ(provider.Buy(id, "n1"), ACCEPTED);
  EXPECT_EQ(provider.Buy(id, "n2"), SOLD_OUT);
  ASSERT_TRUE(WrittenUntil(provider, writer, id, 6));
  const ReconcileResponse report = provider.Reconcile(id);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.database_stock(), 0);
  EXPECT_EQ(report.cache_stock(), 0);
  EXPECT_EQ(report.cache_difference(), 0);
}

TEST_F(SeckillFailureTest, AReloadLeavesOutTheUnitsOfReservationsStillToBeWritten) {
  HandBuiltProvider provider(config_);
  const int64_t id = provider.CreateOpenActivity(5);
  ASSERT_GT(id, 0);
  // Accepted, not written yet: the database still counts their units as unsold.
  ASSERT_EQ(provider.Buy(id, "q0"), ACCEPTED);
  ASSERT_EQ(provider.Buy(id, "q1"), ACCEPTED);
  bool marked = false;
  ASSERT_TRUE(
      provider.cache().MarkStale(id, kSku, provider.Activity(id).cache_epoch, &marked).ok());
  ASSERT_TRUE(marked);
  PurchaseAnswer answer = SOLD_OUT;
  EXPECT_EQ(provider.TryBuy(id, "q2", "q2-r", &answer).code(), StatusCode::UNAVAILABLE);

  // The new generation gets 5 - 2: the two queued reservations take theirs when written.
  const PreheatResponse reopened = provider.Preheat(id);
  EXPECT_FALSE(reopened.already_open());
  EXPECT_EQ(reopened.cached_stock(), 3);
  EXPECT_EQ(provider.Reconcile(id).cache_difference(), 0);
  EXPECT_EQ(provider.Buy(id, "q0", "q0-again"), ALREADY_JOINED);
  EXPECT_EQ(provider.Buy(id, "q0"), ACCEPTED);  // its request replays
  OrderWriter writer(provider.core(), {.consumer = "w", .batch = 16, .claim_idle_ms = 1000});
  ASSERT_TRUE(WrittenUntil(provider, writer, id, 2));
  for (const char* user : {"q2", "q3", "q4"}) EXPECT_EQ(provider.Buy(id, user), ACCEPTED);
  EXPECT_EQ(provider.Buy(id, "q5"), SOLD_OUT);
  ASSERT_TRUE(WrittenUntil(provider, writer, id, 5));
  const ReconcileResponse report = provider.Reconcile(id);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.database_stock(), 0);
  EXPECT_EQ(report.cache_stock(), 0);
}

TEST_F(SeckillFailureTest, AReusedActivityIdDoesNotInheritTheOldKeys) {
  int64_t old_id = 0;
  {
    HandBuiltProvider old(config_);
    old_id = old.CreateOpenActivity(3);
    ASSERT_GT(old_id, 0);
    // Reserved and never written: their events stay on the old queue.
    ASSERT_EQ(old.Buy(old_id, "u0"), ACCEPTED);
    ASSERT_EQ(old.Buy(old_id, "u1"), ACCEPTED);
  }
  // A new database: its first activity gets the same id, and finds the old keys in Redis.
  SeckillConfig fresh_config = config_;
  fresh_config.mariadb.database = FreshDatabaseName("reused");
  HandBuiltProvider provider(fresh_config);
  const int64_t id = provider.CreateOpenActivity(5);
  ASSERT_EQ(id, old_id);

  const ReconcileResponse loaded = provider.Reconcile(id);
  EXPECT_EQ(loaded.cache_stock(), 5) << loaded.ShortDebugString();
  EXPECT_EQ(loaded.reservations(), 0);
  // u0 buys anew: neither replayed from the old answers nor refused as an old buyer.
  EXPECT_EQ(provider.Buy(id, "u0"), ACCEPTED);
  OrderWriter writer(provider.core(), {.consumer = "w", .batch = 16, .claim_idle_ms = 1});
  ASSERT_TRUE(WrittenUntil(provider, writer, id, 1));
  for (int i = 0; i < 5; ++i) writer.Step();
  const ReconcileResponse report = provider.Reconcile(id);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.orders_unpaid(), 1);  // the old queue's u1 made no order here
  EXPECT_EQ(report.database_stock(), 4);
  EXPECT_EQ(report.cache_stock(), 4);
}

TEST_F(SeckillFailureTest, ACancellationCountedInAReloadIsNotReleasedIntoIt) {
  HandBuiltProvider provider(config_);
  const int64_t id = provider.CreateOpenActivity(3);
  ASSERT_GT(id, 0);
  ASSERT_EQ(provider.Buy(id, "c0"), ACCEPTED);
  ASSERT_EQ(provider.Buy(id, "c1"), ACCEPTED);
  OrderWriter writer(provider.core(), {.consumer = "w", .batch = 16, .claim_idle_ms = 1000});
  ASSERT_TRUE(WrittenUntil(provider, writer, id, 2));
  RequestRecord c0;
  ASSERT_TRUE(provider.store().GetRequest({.request_id = "c0-r"}, &c0).ok());

  // The cancellation commits (the database's stock is 2 again), then a preheat reloads the lost
  // cache from that stock, and only then does the cancellation's release reach the cache.
  ASSERT_TRUE(SharedServers::redis().RestartEmpty());
  CancelResult cancelled;
  ASSERT_TRUE(provider.store().CancelUnpaid(c0.order_no, &cancelled).ok());
  ASSERT_TRUE(cancelled.cancelled);
  EXPECT_EQ(provider.Preheat(id).cached_stock(), 2);
  const Status published = provider.core()->PublishRelease(
      {c0.order_no, id, kSku, cancelled.cache_epoch, cancelled.cache_epoch});
  ASSERT_TRUE(published.ok()) << published;
  EXPECT_EQ(provider.Reconcile(id).cache_stock(), 2);
  CloseExpiredOrders(*provider.core());
  std::vector<PendingCacheRelease> pending;
  ASSERT_TRUE(provider.store().ListPendingCacheReleases(10, &pending).ok());
  EXPECT_TRUE(pending.empty());

  // Refused as "not loaded" (Redis lost again), a release waits, and is not counted twice.
  RequestRecord c1;
  ASSERT_TRUE(provider.store().GetRequest({.request_id = "c1-r"}, &c1).ok());
  ASSERT_TRUE(SharedServers::redis().RestartEmpty());
  EXPECT_TRUE(provider.Cancel(c1.order_no).cancelled());
  EXPECT_EQ(provider.Preheat(id).cached_stock(), 3);
  CloseExpiredOrders(*provider.core());
  const ReconcileResponse report = provider.Reconcile(id);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.database_stock(), 3);
  EXPECT_EQ(report.cache_stock(), 3);
  EXPECT_EQ(report.releases_pending(), 0);
}

TEST_F(SeckillFailureTest, ACancellationCommittingDuringAPreheatReachesTheNewGeneration) {
  HandBuiltProvider provider(config_);
  const int64_t id = provider.CreateOpenActivity(3);
  ASSERT_GT(id, 0);
  ASSERT_EQ(provider.Buy(id, "c0"), ACCEPTED);
  OrderWriter writer(provider.core(), {.consumer = "w", .batch = 16, .claim_idle_ms = 1000});
  ASSERT_TRUE(WrittenUntil(provider, writer, id, 1));
  RequestRecord c0;
  ASSERT_TRUE(provider.store().GetRequest({.request_id = "c0-r"}, &c0).ok());
  const ActivityRecord before = provider.Activity(id);

  // A preheat's steps, with the cancellation committing between its database transaction
  // (stock 2, the new generation recorded) and its load of the cache.
  constexpr int64_t kNext = 0x5eed;
  CacheEpochBase base;
  ASSERT_TRUE(provider.store().BeginCacheEpoch(id, kSku, kNext, {}, &base).ok());
  EXPECT_EQ(base.remaining_stock, 2);
  EXPECT_TRUE(provider.Cancel(c0.order_no).cancelled());
  // The cache still holds the old generation: the release is not given to it, it waits.
  EXPECT_EQ(provider.Reconcile(id).releases_pending(), 1);
  bool raced = true;
  ASSERT_TRUE(provider.cache()
                  .Preheat({.activity_id = id,
                            .sku_id = kSku,
                            .epoch = kNext,
                            .expected_marker = std::to_string(before.cache_epoch),
                            .keep_requests = true,
                            .stock = base.remaining_stock,
                            .buyers = {"c0"}},
                           &raced)
                  .ok());
  ASSERT_FALSE(raced);
  EXPECT_EQ(provider.Reconcile(id).cache_difference(), 0);  // the pending release balances it
  CloseExpiredOrders(*provider.core());
  const ReconcileResponse report = provider.Reconcile(id);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.releases_pending(), 0);
  EXPECT_EQ(report.database_stock(), 3);
  EXPECT_EQ(report.cache_stock(), 3);
}

TEST_F(SeckillFailureTest, ReconcileReportsWhereTheCacheAndTheDatabaseDisagree) {
  HandBuiltProvider provider(config_);
  const int64_t id = provider.CreateOpenActivity(5);
  ASSERT_GT(id, 0);
  ASSERT_EQ(provider.Buy(id, "d0"), ACCEPTED);
  ASSERT_EQ(provider.Buy(id, "d1"), ACCEPTED);
  // Reservations not yet written balance the cache's side.
  ReconcileResponse report = provider.Reconcile(id);
  EXPECT_EQ(report.reservations_without_order(), 2);
  EXPECT_EQ(report.cache_difference(), 0);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  OrderWriter writer(provider.core(), {.consumer = "w", .batch = 16, .claim_idle_ms = 1000});
  ASSERT_TRUE(WrittenUntil(provider, writer, id, 2));

  // Units lost from the cache (it holds less than the database): reported, not repaired.
  ASSERT_EQ(RawRedis({"DECRBY", StockKey(id), "2"}), "1");
  report = provider.Reconcile(id);
  EXPECT_FALSE(report.invariants_hold());
  EXPECT_EQ(report.cache_stock(), 1);
  EXPECT_EQ(report.database_stock(), 3);
  EXPECT_EQ(report.cache_difference(), -2);
  ASSERT_EQ(report.violations_size(), 1) << report.ShortDebugString();
  EXPECT_NE(report.violations(0).find("difference -2"), std::string::npos) << report.violations(0);
  // One unit too many.
  ASSERT_EQ(RawRedis({"INCRBY", StockKey(id), "3"}), "4");
  EXPECT_EQ(provider.Reconcile(id).cache_difference(), 1);
}

TEST_F(SeckillFailureTest, TheReconcilerExportsTheDifference) {
  config_.reconcile_interval_ms = 20;
  InProcessProvider provider;
  ASSERT_NO_FATAL_FAILURE(provider.Start(config_));
  const int64_t id = CreateActivity(provider.proxy(), {.sku_id = kSku, .stock = 4});
  ASSERT_GT(id, 0);
  ASSERT_EQ(RawRedis({"DECRBY", StockKey(id), "3"}), "1");
  EXPECT_TRUE(Eventually([] { return Metrics().cache_difference->Value() == 3; }))
      << Metrics().cache_difference->Value();
  ASSERT_EQ(RawRedis({"INCRBY", StockKey(id), "3"}), "4");
  EXPECT_TRUE(Eventually([] { return Metrics().cache_difference->Value() == 0; }));
}

}  // namespace
}  // namespace ferry::seckill::failure_test
