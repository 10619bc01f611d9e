// Recovery keeps every confirmed change, against real servers that fail: MariaDB down while
// changes are confirmed (redis-first), Redis restarted on an older copy of its data, MariaDB
// down while database-first serves counts from Redis; and reconciliation repairs, by version in
// both directions, while writers run.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <random>
#include <thread>

#include "ferry/storage/mariadb_connection.h"
#include "ferry/storage/sql_lease.h"
#include "ferry/storage/sqlite_connection.h"
#include "like_test_support.h"
#include "service/event_writer.h"
#include "service/reconciler.h"
#include "storage/redis_like_keys.h"

namespace ferry::like::testing {
namespace {

using namespace std::chrono_literals;

class LikeRecoveryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SharedServers::Start();
    ASSERT_TRUE(SharedServers::FlushRedis());
    config_ = RedisMariaDbConfig(FreshDatabaseName("like_rec"));
  }
  void TearDown() override {
    // A test that stopped a server leaves it running for the next.
    ASSERT_TRUE(SharedServers::mariadb().Start());
    ASSERT_TRUE(SharedServers::redis().Start());
  }
  std::unique_ptr<LikeApp> Open() {
    std::unique_ptr<LikeApp> app;
    Status s = LikeApp::Create(config_, &app);
    EXPECT_TRUE(s.ok()) << s;
    return app;
  }
  static SetLikeResult Set(LikeApp& app, int64_t content, const std::string& user, bool liked) {
    SetLikeResult result;
    Status s = app.core().store->SetLike(content, user, liked, "", &result);
    EXPECT_TRUE(s.ok()) << s;
    return result;
  }
  static bool HasLiked(LikeApp& app, int64_t content, const std::string& user) {
    std::vector<bool> liked;
    const int64_t ids[] = {content};
    Status s = app.core().store->HasLiked(user, ids, &liked);
    EXPECT_TRUE(s.ok()) << s;
    return s.ok() && liked[0];
  }
  EventWriter Writer(LikeApp& app, const std::string& holder) {
    return EventWriter(app.core().log, &app.core().redis->pool(), app.core().database,
                       app.generation(), {.holder = holder, .lease_ms = 300, .max_failures = 3});
  }

  LikeConfig config_;
};

// Changes confirmed while MariaDB is down wait in Redis, however many times their writer tries:
// an unavailable database is not a reason to give up on them. Once it is back, every one is
// in the record, and none is dead-lettered.
TEST_F(LikeRecoveryTest, AMariaDbOutageOfManyAttemptsLosesAndDeadLettersNothing) {
  std::unique_ptr<LikeApp> app = Open();
  EventWriter writer = Writer(*app, "w");
  writer.Step();  // holds the partitions
  // The content's buckets in Redis (a write needs the record to load a bucket the first time).
  for (uint32_t b = 0; b < app->core().layout->BucketsOf(31); ++b) {
    for (int i = 0;; ++i) {
      const std::string user = "warm" + std::to_string(i);
      if (app->core().layout->BucketOf(31, user) != b) continue;
      ASSERT_TRUE(Set(*app, 31, user, false).version == 0);  // loads the bucket, changes nothing
      break;
    }
  }
  SharedServers::mariadb().Kill();
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(Set(*app, 31, "o" + std::to_string(i), true).changed);  // confirmed by Redis
  }
  // Far more attempts than max_failures, and far longer than max_failures x the lease.
  for (int attempt = 0; attempt < 30; ++attempt) {
    writer.Step();
    std::this_thread::sleep_for(50ms);  // the outage's length, not a synchronisation
  }
  ASSERT_TRUE(SharedServers::mariadb().Start());
  ASSERT_TRUE(Eventually([&] {
    writer.Step();
    return RecordOf(*app->core().database, 31).likes == 100;
  }));
  int64_t dead = -1;
  ASSERT_TRUE(app->core().database->CountDeadLetters(&dead).ok());
  EXPECT_EQ(dead, 0);
  writer.Stop();
  ASSERT_EQ(Drain(*app), Status::Ok());
  ExpectAllLevels(*app, 31, 100);
}

// Redis restarted on an older copy of its data (a restored dump or append-only file): its
// buckets still carry their markers, but of a generation made for a server that is gone, so they
// are loaded again from the record before anything is served; the record's newer state wins
// over the copy's older one, and the next change moves the count.
TEST_F(LikeRecoveryTest, RedisRestoredFromAnOlderCopyServesTheRecordAndMovesOn) {
  testsupport::RedisServer& redis = SharedServers::redis();
  std::unique_ptr<LikeApp> app = Open();
  ASSERT_TRUE(Set(*app, 41, "ann", true).changed);
  ASSERT_TRUE(Set(*app, 41, "bob", true).changed);
  ASSERT_EQ(Drain(*app), Status::Ok());
  redis.Stop();  // a clean stop: the append-only file holds everything
  const std::filesystem::path copy = redis.dir() / "older-copy";
  std::filesystem::remove_all(copy);
  std::filesystem::copy(redis.data_dir(), copy, std::filesystem::copy_options::recursive);
  ASSERT_TRUE(redis.Start());

  ASSERT_TRUE(Set(*app, 41, "ann", false).changed);
  ASSERT_EQ(Drain(*app), Status::Ok());
  ASSERT_FALSE(HasLiked(*app, 41, "ann"));
  redis.Stop();
  std::filesystem::remove_all(redis.data_dir());
  std::filesystem::copy(copy, redis.data_dir(), std::filesystem::copy_options::recursive);
  ASSERT_TRUE(redis.Start());  // back in time: ann likes 41 again in Redis's copy

  EXPECT_FALSE(HasLiked(*app, 41, "ann"));
  EXPECT_TRUE(HasLiked(*app, 41, "bob"));
  const SetLikeResult again = Set(*app, 41, "ann", true);
  EXPECT_TRUE(again.changed);
  EXPECT_EQ(StoreTotal(*app, 41), 2);
  ASSERT_EQ(Drain(*app), Status::Ok());
  ExpectAllLevels(*app, 41, 2);
  EXPECT_GT(app->generation()->changes(), 0u);
}

// Redis-first: a bucket whose empty marker expired, next to a loaded bucket of its content, is
// empty (the record changes only through the streams, of loaded buckets): its counts and
// states are read without the record, which may be down.
TEST_F(LikeRecoveryTest, AnExpiredEmptyBucketNextToLoadedOnesIsReadWithoutTheRecord) {
  std::unique_ptr<LikeApp> app = Open();
  RedisLikeStore store(&app->core().redis->pool(), app->core().database, app->core().layout,
                       app->generation(), {.partitions = config_.partitions, .empty_ttl_ms = 100});
  ASSERT_TRUE(store.Connect().ok());
  SetLikeResult result;
  ASSERT_TRUE(store.SetLike(45, "nobody", false, "", &result).ok());  // loads every bucket empty
  ASSERT_TRUE(store.SetLike(45, "liker", true, "", &result).ok());
  const uint32_t liked_bucket = result.bucket;
  std::string other;
  for (int i = 0; other.empty(); ++i) {
    const std::string u = "o" + std::to_string(i);
    if (app->core().layout->BucketOf(45, u) != liked_bucket) other = u;
  }
  const BucketKeys other_keys = store.KeysOf(45, app->core().layout->BucketOf(45, other));
  ASSERT_TRUE(Eventually([&] { return RedisInteger({"EXISTS", other_keys.ready}) == 0; }));
  SharedServers::mariadb().Kill();
  std::vector<ContentCounts> counts;
  const int64_t ids[] = {45};
  Status s = store.Counts(ids, &counts);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(counts[0].total(), 1);
  std::vector<bool> liked;
  s = store.HasLiked(other, ids, &liked);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_FALSE(liked[0]);
  ASSERT_TRUE(SharedServers::mariadb().Start());
}

// Database-first counts come from Redis (the record is MariaDB): with MariaDB down, a content
// Redis holds is still counted.
TEST_F(LikeRecoveryTest, DatabaseFirstCountsComeFromRedisWhileMariaDbIsDown) {
  config_.write_mode = "database-first";
  std::unique_ptr<LikeApp> app = Open();
  for (int i = 0; i < 7; ++i) ASSERT_TRUE(Set(*app, 51, "d" + std::to_string(i), true).changed);
  ASSERT_EQ(Drain(*app), Status::Ok());
  EXPECT_EQ(StoreTotal(*app, 51), 7);  // loads the content into Redis
  SharedServers::mariadb().Kill();
  EXPECT_EQ(StoreTotal(*app, 51), 7);
  ASSERT_TRUE(SharedServers::mariadb().Start());
}

// Two database-first providers each relay some partitions of the outbox: every committed
// change reaches Redis and the feed once.
TEST_F(LikeRecoveryTest, DatabaseFirstOutboxRowsAreRelayedOnceByOneProvider) {
  config_.write_mode = "database-first";
  std::unique_ptr<LikeApp> one = Open();
  std::unique_ptr<LikeApp> two = Open();
  int changes = 0;
  for (int i = 0; i < 120; ++i) {
    LikeApp& app = i % 2 == 0 ? *one : *two;
    changes += Set(app, 52 + i % 3, "r" + std::to_string(i % 50), i % 4 != 0).changed ? 1 : 0;
  }
  std::atomic<bool> stop{false};
  std::thread other([&] {
    // Racing relay-one, it may find partitions taken: only what both relayed is checked.
    while (!stop) static_cast<void>(two->DrainOutbox("relay-two"));
  });
  ASSERT_EQ(Drain(*one, "relay-one"), Status::Ok());
  stop = true;
  other.join();
  ASSERT_EQ(Drain(*one, "relay-one"), Status::Ok());
  int64_t fed = 0;
  for (uint32_t p = 0; p < one->core().database->partitions(); ++p) {
    std::vector<FeedChange> page;
    ASSERT_TRUE(one->core().database->ListChanges(p, 0, 100000, &page).ok());
    fed += static_cast<int64_t>(page.size());
  }
  EXPECT_EQ(fed, changes);
  for (int64_t c = 52; c < 55; ++c) {
    ExpectAllLevels(*one, c, RecordOf(*one->core().database, c).likes);
  }
}

// A change Redis holds whose event the record never got (here deleted from the stream): Redis
// is newer, so the repair writes the change to the record again, as the event would have.
TEST_F(LikeRecoveryTest, ALostUnlikeIsRepairedToUnlikedOnEveryLevel) {
  std::unique_ptr<LikeApp> app = Open();
  ASSERT_TRUE(Set(*app, 61, "lu", true).changed);
  ASSERT_TRUE(Set(*app, 61, "keep", true).changed);
  ASSERT_EQ(Drain(*app), Status::Ok());
  const SetLikeResult unlike = Set(*app, 61, "lu", false);
  ASSERT_TRUE(unlike.changed);
  const uint32_t partition = PartitionOf(61, unlike.bucket, config_.partitions);
  const std::string stream = PartitionKeys::For(partition).stream;
  // The entry the unlike appended, deleted: the event is lost.
  const std::string id = RedisText({"EVAL",
                                    "local e = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', "
                                    "1) redis.call('XDEL', KEYS[1], e[1][1]) return e[1][1]",
                                    "1", stream});
  ASSERT_NE(id.find('-'), std::string::npos) << id;
  ASSERT_EQ(Drain(*app), Status::Ok());
  ASSERT_EQ(RecordOf(*app->core().database, 61).likes, 2);  // the record still says liked

  ReconcileResponse report;
  ASSERT_TRUE(Reconcile(app->core(), 61, false, &report).ok());
  ASSERT_EQ(report.violations_size(), 1) << report.ShortDebugString();
  EXPECT_NE(report.violations(0).find("lost"), std::string::npos) << report.violations(0);
  ASSERT_TRUE(Reconcile(app->core(), 61, true, &report).ok());
  EXPECT_TRUE(report.repaired());
  ASSERT_EQ(Drain(*app), Status::Ok());
  EXPECT_FALSE(HasLiked(*app, 61, "lu"));
  EXPECT_TRUE(HasLiked(*app, 61, "keep"));
  ExpectAllLevels(*app, 61, 1);
}

// The record newer than Redis (a state Redis lost): the repair brings it to Redis, never older
// over newer.
TEST_F(LikeRecoveryTest, ARecordNewerThanRedisIsBroughtToRedis) {
  std::unique_ptr<LikeApp> app = Open();
  const SetLikeResult liked = Set(*app, 62, "rn", true);
  ASSERT_EQ(Drain(*app), Status::Ok());
  int applied = 0;
  int changed = 0;
  ASSERT_TRUE(app->core()
                  .database
                  ->ApplyBatch({{.content_id = 62,
                                 .user_id = "rn",
                                 .liked = false,
                                 .version = liked.version + 10,
                                 .bucket = liked.bucket}},
                               &applied, &changed)
                  .ok());
  ASSERT_EQ(applied, 1);
  ReconcileResponse report;
  ASSERT_TRUE(Reconcile(app->core(), 62, false, &report).ok());
  ASSERT_EQ(report.violations_size(), 1) << report.ShortDebugString();
  EXPECT_NE(report.violations(0).find("behind"), std::string::npos) << report.violations(0);
  ASSERT_TRUE(Reconcile(app->core(), 62, true, &report).ok());
  EXPECT_FALSE(HasLiked(*app, 62, "rn"));
  ExpectAllLevels(*app, 62, 0);
  // And the next change outranks what the record had.
  const SetLikeResult again = Set(*app, 62, "rn", true);
  EXPECT_GT(again.version, liked.version + 10);
}

// Count rows rebuilt while eight writers change the same content keep every change's move:
// the rebuild holds the count rows' locks, so no change lands between its read and its write.
class LikeRepairStormTest : public ::testing::TestWithParam<std::string> {};

TEST_P(LikeRepairStormTest, RepairsDuringAnEightWriterStormKeepCountRowsExact) {
  if (GetParam() != "embedded") {
    SharedServers::Start();
    ASSERT_TRUE(SharedServers::FlushRedis());
  }
  TempDir dir;
  LikeConfig config = ConfigFor(GetParam(), dir.path());
  config.writer_threads = 1;  // the record changes while it is repaired
  std::unique_ptr<LikeApp> app;
  ASSERT_TRUE(LikeApp::Create(config, &app).ok());
  for (int i = 0; i < 20; ++i) {
    SetLikeResult r;
    ASSERT_TRUE(app->core().store->SetLike(71, "s" + std::to_string(i), true, "", &r).ok());
  }
  ASSERT_EQ(Drain(*app), Status::Ok());
  std::atomic<bool> done{false};
  std::atomic<int> failures{0};
  std::vector<std::thread> writers;
  for (int t = 0; t < 8; ++t) {
    writers.emplace_back([&, t] {
      std::mt19937 rng(static_cast<uint32_t>(t + 7));
      for (int i = 0; i < 150; ++i) {
        SetLikeResult r;
        if (!app->core()
                 .store->SetLike(71, "s" + std::to_string(rng() % 60), rng() % 2 == 0, "", &r)
                 .ok()) {
          ++failures;
        }
      }
    });
  }
  std::thread repairer([&] {
    const uint32_t buckets = app->core().layout->BucketsOf(71);
    for (int i = 0; !done; ++i) {
      bool changed = false;
      if (!app->core().database->RepairCounts(71, buckets, &changed).ok()) ++failures;
      if (GetParam() == "embedded" && !done) {
        ReconcileResponse report;
        if (!Reconcile(app->core(), 71, true, &report).ok()) ++failures;
      }
    }
  });
  for (auto& w : writers) w.join();
  done = true;
  repairer.join();
  EXPECT_EQ(failures.load(), 0);
  ASSERT_EQ(Drain(*app), Status::Ok());
  const ContentRecord record = RecordOf(*app->core().database, 71);
  EXPECT_EQ(record.counted, record.likes);
  ExpectAllLevels(*app, 71, record.likes);
}

INSTANTIATE_TEST_SUITE_P(Backends, LikeRepairStormTest,
                         ::testing::Values("embedded", "redis+mariadb", "database-first"),
                         [](const auto& info) {
                           return info.param == "embedded"        ? std::string("Embedded")
                                  : info.param == "redis+mariadb" ? std::string("RedisFirst")
                                                                  : std::string("DatabaseFirst");
                         });

// The reconciler judges a content while it takes changes (no "wait until nothing is pending"):
// a count row falsified under 50 writes a second is found and repaired by the periodic job.
TEST_F(LikeRecoveryTest, TheReconcilerRepairsAFalsifiedCountRowUnderSteadyWrites) {
  config_.writer_threads = 1;
  config_.reconcile_interval_ms = 100;
  config_.reconcile_repair = true;
  std::unique_ptr<LikeApp> app = Open();
  for (int i = 0; i < 10; ++i) Set(*app, 81, "f" + std::to_string(i), true);
  std::atomic<bool> done{false};
  std::thread steady([&] {
    for (int i = 0; i < 1000 && !done; ++i) {  // about 50 a second, at most 20 s
      Set(*app, 81, "g" + std::to_string(i % 40), i % 3 != 0);
      std::this_thread::sleep_for(20ms);
    }
  });
  std::unique_ptr<storage::SqlConnection> sql;
  ASSERT_TRUE(storage::MariaDbConnection::Open(config_.mariadb, &sql).ok());
  ASSERT_TRUE(Eventually([&] { return RecordOf(*app->core().database, 81).counted >= 10; }));
  ASSERT_TRUE(
      sql->Execute("UPDATE like_count SET count = count + 5 WHERE content_id = 81 AND bucket = 0",
                   {})
          .ok());
  EXPECT_TRUE(Eventually([&] {
    const ContentRecord record = RecordOf(*app->core().database, 81);
    return record.counted == record.likes;
  }));
  done = true;
  steady.join();
}

// One provider repairs a content at a time: another's repair is refused while it holds it.
TEST_F(LikeRecoveryTest, OneProviderRepairsAContentAtATime) {
  std::unique_ptr<LikeApp> app = Open();
  const SetLikeResult x = Set(*app, 91, "x", true);
  ASSERT_EQ(Drain(*app), Status::Ok());
  ASSERT_EQ(RedisInteger({"INCRBY", app->core().redis->KeysOf(91, x.bucket).count, "3"}), 4);
  storage::SqlLease other(app->core().database->pool(), "like-repair:91", "another-provider",
                          std::chrono::seconds(60));
  bool held = false;
  ASSERT_TRUE(other.Acquire(&held).ok());
  ASSERT_TRUE(held);
  ReconcileResponse report;
  Status s = Reconcile(app->core(), 91, true, &report);
  EXPECT_EQ(s.code(), StatusCode::ABORTED) << s;
  ASSERT_TRUE(other.Release().ok());
  ASSERT_TRUE(Reconcile(app->core(), 91, true, &report).ok());
  EXPECT_TRUE(report.repaired());
  ExpectAllLevels(*app, 91, 1);
}

}  // namespace
}  // namespace ferry::like::testing
