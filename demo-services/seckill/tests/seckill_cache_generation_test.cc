// The cache's generation, against a real Redis and MariaDB: a Redis restored from an older copy,
// one that lost reservations without changing its identity, or one holding a reused activity
// id's keys closes the sale until reloaded (by Preheat, or by the reconciler under the
// activity's lease); a reload is fenced, so a purchase around it is counted once and concurrent
// reloads end in one generation; Reconcile reports where the cache and the database disagree.
#include "seckill_failure_fixture.h"

namespace ferry::seckill::failure_test {
namespace {

TEST_F(SeckillFailureTest, RedisRestoredFromAnOlderCopyIsClosedUntilReloaded) {
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
  // ...a restarted Redis sells nothing until reloaded (it may have lost its last writes); the
  // reload keeps its answers...
  PurchaseAnswer answer = SOLD_OUT;
  EXPECT_EQ(provider.TryBuy(id, "a2", "a2-r", &answer).code(), StatusCode::UNAVAILABLE);
  EXPECT_EQ(provider.Preheat(id).cached_stock(), 4);
  // ...two more sales written...
  ASSERT_EQ(provider.Buy(id, "a2"), ACCEPTED);
  ASSERT_EQ(provider.Buy(id, "a3"), ACCEPTED);
  ASSERT_TRUE(WrittenUntil(provider, writer, id, 4));
  // ...and Redis restored from the copy: its loaded marker and generation are intact, its stock
  // says 4 and it knows neither a2 nor a3. It is another server state: the first connection to
  // it gives the activity's generation key a new generation, before any purchase reaches it.
  redis.Stop();
  std::filesystem::remove_all(redis.data_dir());
  std::filesystem::copy(copy, redis.data_dir(), std::filesystem::copy_options::recursive);
  ASSERT_TRUE(redis.Start());
  ASSERT_EQ(RawRedis({"GET", StockKey(id)}), "4");

  // Closed at once, before any reconcile: new buyers and the buyers the copy forgot alike.
  for (const char* user : {"n0", "a2", "n1"}) {
    PurchaseAnswer answer = SOLD_OUT;
    const Status s = provider.TryBuy(id, user, std::string(user) + "-closed", &answer);
    EXPECT_EQ(s.code(), StatusCode::UNAVAILABLE) << user << ": " << PurchaseAnswer_Name(answer);
    EXPECT_NE(s.message().find("reloaded"), std::string::npos) << s;
  }
  const ReconcileResponse found = provider.Reconcile(id);
  EXPECT_FALSE(found.invariants_hold());
  ASSERT_GE(found.violations_size(), 1);
  EXPECT_NE(found.violations(0).find("stopped selling"), std::string::npos)
      << found.ShortDebugString();
  EXPECT_EQ(found.cache_stock(), -1);

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

// A Redis that lost reservations without a new identity (a replica promoted before the
// providers' periodic check saw it, say) counts on from an older count and hands sequence
// numbers out again: the first order written with a reused number closes the generation.
TEST_F(SeckillFailureTest, APurchaseThatReusesASequenceNumberClosesTheGenerationAtOnce) {
  HandBuiltProvider provider(config_);
  const int64_t id = provider.CreateOpenActivity(6);
  ASSERT_GT(id, 0);
  OrderWriter writer(provider.core(), {.consumer = "w", .batch = 16, .claim_idle_ms = 1000});
  for (const char* user : {"a0", "a1", "a2", "a3"}) ASSERT_EQ(provider.Buy(id, user), ACCEPTED);
  ASSERT_TRUE(WrittenUntil(provider, writer, id, 4));
  // The data goes back to before a2 and a3: their answers, participation and count are gone.
  const std::string prefix = "seckill:{" + std::to_string(id) + ":" + std::to_string(kSku) + "}:";
  ASSERT_EQ(RawRedis({"SET", prefix + "accepted", "2"}), "OK");
  ASSERT_EQ(RawRedis({"SET", StockKey(id), "4"}), "OK");
  ASSERT_EQ(RawRedis({"HDEL", prefix + "requests", RequestField("a2", "a2-r"),
                      RequestField("a3", "a3-r")}),
            "2");
  ASSERT_EQ(RawRedis({"SREM", prefix + "buyers", "a2", "a3"}), "2");

  // Sold with number 3 again, and written from the database's stock all the same...
  ASSERT_EQ(provider.Buy(id, "n0"), ACCEPTED);
  ASSERT_TRUE(WrittenUntil(provider, writer, id, 5));
  // ...but the generation sells no more.
  PurchaseAnswer answer = SOLD_OUT;
  EXPECT_EQ(provider.TryBuy(id, "n1", "n1-r", &answer).code(), StatusCode::UNAVAILABLE);
  const ReconcileResponse found = provider.Reconcile(id);
  EXPECT_FALSE(found.invariants_hold());
  EXPECT_EQ(found.cache_stock(), -1);
  // Reloaded from the database's one unit left; the forgotten buyers stay refused.
  EXPECT_EQ(provider.Preheat(id).cached_stock(), 1);
  EXPECT_EQ(provider.Buy(id, "a2", "a2-again"), ALREADY_JOINED);
  EXPECT_EQ(provider.Buy(id, "n1"), ACCEPTED);
  EXPECT_EQ(provider.Buy(id, "n2"), SOLD_OUT);
  ASSERT_TRUE(WrittenUntil(provider, writer, id, 6));
  const ReconcileResponse report = provider.Reconcile(id);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.database_stock(), 0);
}

// A reload closes sales before it lists the reservations: a purchase reserved before the fence
// is listed and counted once, one tried after it is refused (and succeeds once reloaded).
TEST_F(SeckillFailureTest, APurchaseAroundAReloadIsCountedOnce) {
  HandBuiltProvider provider(config_);
  const int64_t id = provider.CreateOpenActivity(5);
  ASSERT_GT(id, 0);
  ASSERT_EQ(provider.Buy(id, "before"), ACCEPTED);  // reserved, not written
  const ActivityRecord old = provider.Activity(id);
  ReservationCache& cache = provider.cache();
  CacheSnapshot snapshot;
  ASSERT_TRUE(cache.Snapshot(id, kSku, &snapshot).ok());
  constexpr int64_t kNext = 0xfe2ce;
  bool fenced = false;
  ASSERT_TRUE(cache.Fence(id, kSku, snapshot.marker, kNext, WallMs(), &fenced).ok());
  ASSERT_TRUE(fenced);
  PurchaseAnswer answer = SOLD_OUT;
  const Status during = provider.TryBuy(id, "during", "during-r", &answer);
  EXPECT_EQ(during.code(), StatusCode::UNAVAILABLE) << during;
  EXPECT_NE(during.message().find("being reloaded"), std::string::npos) << during;
  std::vector<ReservationEvent> kept;
  ASSERT_TRUE(cache.ListReservations(id, kSku, &kept).ok());
  ASSERT_EQ(kept.size(), 1u);
  CacheEpochBase base;
  ASSERT_TRUE(provider.store()
                  .BeginCacheEpoch(id, kSku, old.cache_epoch, kNext, cache.ServerIdentity(), 1,
                                   {{id, kSku, "before", "before-r"}}, &base)
                  .ok());
  ASSERT_EQ(base.undecided, std::vector<bool>{true});
  // Its order is written between the database's switch and the load.
  OrderWriter writer(provider.core(), {.consumer = "w", .batch = 16, .claim_idle_ms = 1000});
  ASSERT_TRUE(WrittenUntil(provider, writer, id, 1));
  bool raced = true;
  ASSERT_TRUE(cache
                  .Preheat({.activity_id = id,
                            .sku_id = kSku,
                            .epoch = kNext,
                            .keep_requests = true,
                            .stock = base.remaining_stock - 1,
                            .buyers = {"before"}},
                           &raced)
                  .ok());
  ASSERT_FALSE(raced);
  EXPECT_EQ(provider.Reconcile(id).cache_difference(), 0);
  // The provider's copy of the activity still names the old generation: it reads the new one
  // from the database once its copy is `recheck_ms` old, answering UNAVAILABLE ("retry") until
  // then, as a buyer's retry finds.
  EXPECT_TRUE(Eventually([&] {
    return provider.TryBuy(id, "during", "during-r", &answer).ok() && answer == ACCEPTED;
  }));
  ASSERT_TRUE(WrittenUntil(provider, writer, id, 2));
  const ReconcileResponse report = provider.Reconcile(id);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.database_stock(), 3);
  EXPECT_EQ(report.cache_stock(), 3);
}

// Reloads forced from two threads at once, while buyers buy: the database and the cache end in
// one generation, and every unit is sold once.
TEST_F(SeckillFailureTest, ConcurrentReloadsLeaveOneGeneration) {
  HandBuiltProvider provider(config_);
  constexpr int64_t kStock = 12;
  const int64_t id = provider.CreateOpenActivity(kStock);
  ASSERT_GT(id, 0);
  std::atomic<bool> done{false};
  std::vector<std::thread> reloaders;
  for (int t = 0; t < 2; ++t) {
    reloaders.emplace_back([&] {
      for (int i = 0; i < 5; ++i) {
        AdmissionContext context;
        PreheatResponse response;
        const Status s = provider.service().Preheat(context, PreheatOf(id, true), &response);
        EXPECT_TRUE(s.ok() || s.code() == StatusCode::UNAVAILABLE) << s;
      }
    });
  }
  OrderWriter writer(provider.core(), {.consumer = "w", .batch = 16, .claim_idle_ms = 1000});
  std::thread writing([&] {
    while (!done.load()) writer.Step();
  });
  int accepted = 0;
  for (int i = 0; i < 40 || accepted < kStock; ++i) {
    ASSERT_LT(i, 2000) << "the sale did not sell out";
    PurchaseAnswer answer = SOLD_OUT;
    const std::string user = "buyer-" + std::to_string(i);
    const Status s = provider.TryBuy(id, user, user, &answer);
    if (s.ok() && answer == ACCEPTED) ++accepted;
  }
  for (auto& thread : reloaders) thread.join();
  done = true;
  writing.join();
  EXPECT_EQ(accepted, kStock);
  ASSERT_TRUE(WrittenUntil(provider, writer, id, kStock));
  CacheSnapshot snapshot;
  ASSERT_TRUE(provider.cache().Snapshot(id, kSku, &snapshot).ok());
  EXPECT_FALSE(snapshot.loading);
  EXPECT_FALSE(snapshot.stale);
  EXPECT_EQ(snapshot.epoch, provider.Activity(id).cache_epoch);
  const ReconcileResponse report = provider.Reconcile(id);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.database_stock(), 0);
  EXPECT_EQ(report.cache_stock(), 0);
}

// The background reconciler reloads a cache that lost the activity, under the activity's lease,
// with nobody calling Preheat.
TEST_F(SeckillFailureTest, ALostCacheIsReloadedByTheReconciler) {
  config_.reconcile_interval_ms = 50;
  InProcessProvider provider;
  ASSERT_NO_FATAL_FAILURE(provider.Start(config_));
  SeckillServiceProxy& proxy = provider.proxy();
  const int64_t id = CreateActivity(proxy, {.sku_id = kSku, .stock = 5});
  ASSERT_GT(id, 0);
  auto first = proxy.Purchase(Purchase(id, kSku, "r0", "r0"));
  ASSERT_TRUE(first.ok() && first->answer() == ACCEPTED) << first.status();
  Settle(proxy, id, [](const ReconcileResponse& r) { return r.orders_unpaid() == 1; });
  ASSERT_TRUE(SharedServers::redis().RestartEmpty());
  std::string last;
  EXPECT_TRUE(Eventually([&] {
    auto r = proxy.Purchase(Purchase(id, kSku, "r1", "r1"));
    last = r.ok() ? PurchaseAnswer_Name(r->answer()) : r.status().ToString();
    return r.ok() && r->answer() == ACCEPTED;
  })) << last;
  auto joined = proxy.Purchase(Purchase(id, kSku, "r0", "r0-again"));
  ASSERT_TRUE(joined.ok()) << joined.status();
  EXPECT_EQ(joined->answer(), ALREADY_JOINED);
  const ReconcileResponse report =
      Settle(proxy, id, [](const ReconcileResponse& r) { return r.orders_unpaid() == 2; });
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.database_stock(), 3);
  EXPECT_EQ(report.cache_stock(), 3);
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
  ASSERT_TRUE(provider.store().CloseOrder(c0.order_no, {OrderState::kUnpaid}, 0, &cancelled).ok());
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

  // A reload's steps, with the cancellation committing between its database transaction
  // (stock 2, the new generation recorded) and its load of the cache.
  constexpr int64_t kNext = 0x5eed;
  CacheSnapshot fenced_from;
  ASSERT_TRUE(provider.cache().Snapshot(id, kSku, &fenced_from).ok());
  bool fenced = false;
  ASSERT_TRUE(provider.cache().Fence(id, kSku, fenced_from.marker, kNext, WallMs(), &fenced).ok());
  ASSERT_TRUE(fenced);
  CacheEpochBase base;
  ASSERT_TRUE(provider.store()
                  .BeginCacheEpoch(id, kSku, before.cache_epoch, kNext,
                                   provider.cache().ServerIdentity(), 1, {}, &base)
                  .ok());
  EXPECT_EQ(base.remaining_stock, 2);
  EXPECT_TRUE(provider.Cancel(c0.order_no).cancelled());
  // The cache is fenced: the release is not given to it, it waits.
  EXPECT_EQ(provider.Reconcile(id).releases_pending(), 1);
  bool raced = true;
  ASSERT_TRUE(provider.cache()
                  .Preheat({.activity_id = id,
                            .sku_id = kSku,
                            .epoch = kNext,
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
