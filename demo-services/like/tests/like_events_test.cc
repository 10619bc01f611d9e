// The event path of redis-first: versioned events applied to the database converge whatever
// the order and however often they arrive; every partition's entries reach the record exactly
// once, whoever wrote them and whoever owns the partition; a dead writer's partitions are taken
// over; an entry the record refuses is dead-lettered alone and re-driven once; a rebuilt Redis
// bucket keeps its version baseline; idle contents cost the writers nothing.

#include <gtest/gtest.h>
#include <hiredis.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <random>
#include <thread>

#include "like_test_support.h"
#include "service/dead_letters.h"
#include "service/event_writer.h"
#include "service/reconciler.h"
#include "storage/redis_like_keys.h"

namespace ferry::like::testing {
namespace {

// One content's events for a few users: each user flips state several times, each change one
// version higher. Returns the users' final states in *last.
std::vector<LikeEvent> EventHistory(int64_t content, int users, std::mt19937& rng,
                                    std::map<std::string, bool>* last) {
  std::vector<LikeEvent> events;
  for (int u = 0; u < users; ++u) {
    const std::string user = "user-" + std::to_string(u);
    bool liked = false;
    const int changes = 1 + static_cast<int>(rng() % 5);
    for (int v = 1; v <= changes; ++v) {
      liked = !liked;
      events.push_back({.content_id = content,
                        .user_id = user,
                        .liked = liked,
                        .version = 1000 + v,
                        .bucket = static_cast<uint32_t>(u % 4)});
    }
    (*last)[user] = liked;
  }
  return events;
}

class LikeEventsTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() != "embedded") SharedServers::Start();
  }
  std::unique_ptr<LikeDatabase> OpenDatabase() {
    auto db = std::make_unique<LikeDatabase>(
        GetParam() == "embedded"
            ? SqliteLikePool((dir_.path() / (FreshDatabaseName("db") + ".db")).string(), 2)
            : MariaDbLikePool(RedisMariaDbConfig(FreshDatabaseName("like_ev")).mariadb, 4),
        /*partitions=*/4);
    Status s = db->Initialize();
    EXPECT_TRUE(s.ok()) << s;
    return db;
  }
  TempDir dir_;
};

// One by one in order, one by one shuffled with every event twice, and in batches.
TEST_P(LikeEventsTest, DuplicatedAndShuffledEventsConvergeToTheLastVersions) {
  std::mt19937 rng(16);
  std::map<std::string, bool> last;
  std::vector<LikeEvent> events = EventHistory(9, 60, rng, &last);
  int64_t expected = 0;
  for (const auto& [user, liked] : last) expected += liked ? 1 : 0;

  std::unique_ptr<LikeDatabase> in_order = OpenDatabase();
  std::unique_ptr<LikeDatabase> shuffled = OpenDatabase();
  for (const LikeEvent& e : events) {
    int applied = 0;
    int changed = 0;
    ASSERT_TRUE(in_order->ApplyBatch({e}, &applied, &changed).ok());
    EXPECT_EQ(applied, 1);
  }
  std::vector<LikeEvent> twice = events;
  twice.insert(twice.end(), events.begin(), events.end());
  std::shuffle(twice.begin(), twice.end(), rng);
  int applied_count = 0;
  for (const LikeEvent& e : twice) {
    int applied = 0;
    int changed = 0;
    ASSERT_TRUE(shuffled->ApplyBatch({e}, &applied, &changed).ok());
    applied_count += applied;
  }
  EXPECT_LE(applied_count, static_cast<int>(events.size()));  // a repeat never applies

  // The event writer's way: the same shuffled events in batches of every size from 1 to 40,
  // each batch one transaction.
  std::unique_ptr<LikeDatabase> batched = OpenDatabase();
  int batched_applied = 0;
  for (size_t from = 0, size = 1; from < twice.size(); from += size, size = size % 40 + 1) {
    const std::vector<LikeEvent> batch(
        twice.begin() + static_cast<std::ptrdiff_t>(from),
        twice.begin() + static_cast<std::ptrdiff_t>(std::min(twice.size(), from + size)));
    int applied = 0;
    int changed = 0;
    ASSERT_TRUE(batched->ApplyBatch(batch, &applied, &changed).ok());
    batched_applied += applied;
  }
  EXPECT_LE(batched_applied, static_cast<int>(events.size()));

  for (LikeDatabase* db : {in_order.get(), shuffled.get(), batched.get()}) {
    const ContentRecord record = RecordOf(*db, 9);
    EXPECT_EQ(record.likes, expected);
    EXPECT_EQ(record.counted, expected);
    for (const LikeRow& row : record.rows) EXPECT_EQ(row.liked, last[row.user_id]) << row.user_id;
  }
}

// Two writers apply the same events of pairs no row has yet, at once: under READ COMMITTED
// neither read locks the missing row, so only the insert can tell them apart; each pair must
// be counted once.
TEST_P(LikeEventsTest, ConcurrentBatchesOfTheSameNewPairsCountEachOnce) {
  std::unique_ptr<LikeDatabase> db = OpenDatabase();
  constexpr int kRounds = 60;
  constexpr int kPairs = 8;
  for (int round = 0; round < kRounds; ++round) {
    std::vector<LikeEvent> batch;
    for (int u = 0; u < kPairs; ++u) {
      batch.push_back({.content_id = 40,
                       .user_id = "r" + std::to_string(round) + "-" + std::to_string(u),
                       .liked = true,
                       .version = 100,
                       .bucket = 0});
    }
    std::atomic<int> failures{0};
    std::vector<std::thread> writers;
    for (int w = 0; w < 2; ++w) {
      writers.emplace_back([&] {
        int applied = 0;
        int changed = 0;
        if (!db->ApplyBatch(batch, &applied, &changed).ok()) ++failures;
      });
    }
    for (std::thread& t : writers) t.join();
    ASSERT_EQ(failures.load(), 0) << "round " << round;
  }
  const ContentRecord record = RecordOf(*db, 40);
  EXPECT_EQ(record.likes, kRounds * kPairs);
  EXPECT_EQ(record.counted, kRounds * kPairs);
}

TEST_P(LikeEventsTest, AStaleEventChangesNothing) {
  std::unique_ptr<LikeDatabase> db = OpenDatabase();
  int applied = 0;
  int changed = 0;
  ASSERT_TRUE(db->ApplyBatch({{.content_id = 3, .user_id = "u", .liked = false, .version = 20}},
                             &applied, &changed)
                  .ok());
  EXPECT_EQ(applied, 1);
  EXPECT_EQ(changed, 0);  // not liked before either: no count row moves
  ASSERT_TRUE(db->ApplyBatch({{.content_id = 3, .user_id = "u", .liked = true, .version = 19}},
                             &applied, &changed)
                  .ok());
  EXPECT_EQ(applied, 0);
  const ContentRecord record = RecordOf(*db, 3);
  EXPECT_EQ(record.likes, 0);
  EXPECT_EQ(record.counted, 0);
}

// A pair without a row takes no change older than the horizon: its tombstone may be gone.
TEST_P(LikeEventsTest, AChangeOlderThanTheHorizonDoesNotResurrectATrimmedPair) {
  std::unique_ptr<LikeDatabase> db = OpenDatabase();
  int applied = 0;
  int changed = 0;
  ASSERT_TRUE(db->ApplyBatch({{.content_id = 4, .user_id = "old", .liked = true, .version = 50},
                              {.content_id = 4, .user_id = "new", .liked = true, .version = 500}},
                             &applied, &changed, /*horizon_version=*/100)
                  .ok());
  EXPECT_EQ(applied, 1);
  EXPECT_EQ(RecordOf(*db, 4).likes, 1);
}

INSTANTIATE_TEST_SUITE_P(Databases, LikeEventsTest, ::testing::Values("embedded", "mariadb"),
                         [](const auto& info) {
                           return info.param == "embedded" ? std::string("Sqlite")
                                                           : std::string("MariaDb");
                         });

class RedisEventsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SharedServers::Start();
    ASSERT_TRUE(SharedServers::FlushRedis());
    Open(&app_);
  }
  void Open(std::unique_ptr<LikeApp>* app) {
    LikeConfig config = RedisMariaDbConfig(database_);
    config.writer_lease_ms = 300;
    Status s = LikeApp::Create(config, app);
    ASSERT_TRUE(s.ok()) << s;
  }
  SetLikeResult Set(LikeApp& app, int64_t content, const std::string& user, bool liked) {
    SetLikeResult result;
    Status s = app.core().store->SetLike(content, user, liked, "", &result);
    EXPECT_TRUE(s.ok()) << s;
    return result;
  }
  SetLikeResult Set(int64_t content, const std::string& user, bool liked) {
    return Set(*app_, content, user, liked);
  }
  EventWriter Writer(LikeApp& app, const std::string& holder, EventWriterOptions options = {}) {
    options.holder = holder;
    if (options.lease_ms == 3000) options.lease_ms = 300;
    return EventWriter(app.core().log, &app.core().redis->pool(), app.core().database,
                       app.generation(), options);
  }
  int64_t DatabaseLikes(int64_t content) { return RecordOf(*app_->core().database, content).likes; }
  int64_t Pending(int64_t content) {
    ReconcileResponse report;
    Status s = Reconcile(app_->core(), content, false, &report);
    EXPECT_TRUE(s.ok()) << s;
    return report.pending_events();
  }
  // Every change of the feed, over all partitions.
  std::vector<FeedChange> Feed() {
    std::vector<FeedChange> all;
    for (uint32_t p = 0; p < app_->core().database->partitions(); ++p) {
      std::vector<FeedChange> page;
      EXPECT_TRUE(app_->core().database->ListChanges(p, 0, 100000, &page).ok());
      for (size_t i = 0; i < page.size(); ++i) EXPECT_EQ(page[i].seq, static_cast<int64_t>(i + 1));
      all.insert(all.end(), page.begin(), page.end());
    }
    return all;
  }

  const std::string database_ = FreshDatabaseName("like_rs");
  std::unique_ptr<LikeApp> app_;
};

// Two providers write, each with a writer; whichever owns a partition applies every entry of
// it, once: the record and the feed hold each real change exactly once, in each pair's order.
TEST_F(RedisEventsTest, EveryChangeReachesTheRecordOnceWhoeverWroteIt) {
  std::unique_ptr<LikeApp> other;
  Open(&other);
  EventWriter mine = Writer(*app_, "w1");
  EventWriter theirs = Writer(*other, "w2");
  // The second writer's arrival shrinks the first's share: it gives partitions back.
  ASSERT_TRUE(Eventually([&] {
    mine.Step();
    theirs.Step();
    return !mine.held().empty() && !theirs.held().empty() &&
           mine.held().size() + theirs.held().size() == app_->core().database->partitions();
  }));
  Truth truth;
  int changes = 0;
  for (int i = 0; i < 200; ++i) {
    LikeApp& app = i % 2 == 0 ? *app_ : *other;
    const std::string user = "u" + std::to_string(i % 37);
    const bool liked = i % 3 != 0;
    changes += Set(app, 20 + i % 5, user, liked).changed ? 1 : 0;
    truth.Set(20 + i % 5, user, liked);
  }
  ASSERT_TRUE(Eventually([&] {
    mine.Step();
    theirs.Step();
    for (int64_t c = 20; c < 25; ++c) {
      if (Pending(c) != 0) return false;
    }
    return true;
  }));
  for (int64_t c = 20; c < 25; ++c) ExpectAllLevels(*app_, c, truth.Count(c));
  const std::vector<FeedChange> feed = Feed();
  EXPECT_EQ(static_cast<int>(feed.size()), changes);
  std::map<std::pair<int64_t, std::string>, int64_t> last_version;
  for (const FeedChange& c : feed) {
    int64_t& v = last_version[{c.content_id, c.user_id}];
    EXPECT_GT(c.version, v) << c.content_id << "/" << c.user_id << ": out of order";
    v = c.version;
  }
  mine.Stop();
  theirs.Stop();
}

// A writer that dies holding partitions (it never gives its leases back) holds them only until
// the leases expire: another takes them over from the record's checkpoints.
TEST_F(RedisEventsTest, ADeadWritersPartitionsAreTakenOverWhenItsLeasesExpire) {
  {
    EventWriter doomed = Writer(*app_, "doomed");
    ASSERT_TRUE(doomed.Step() || true);
    ASSERT_EQ(doomed.held().size(), app_->core().database->partitions());
  }  // gone, without Stop()
  for (int i = 0; i < 50; ++i) Set(12, "g" + std::to_string(i), true);
  EventWriter survivor = Writer(*app_, "survivor");
  survivor.Step();
  EXPECT_TRUE(survivor.held().empty());  // still leased to the dead one
  ASSERT_TRUE(Eventually([&] {
    survivor.Step();
    return Pending(12) == 0;
  }));
  ExpectAllLevels(*app_, 12, 50);
  EXPECT_EQ(Feed().size(), 50u);
  // Nothing of the dead writer stays behind: its place among the live holders expired too.
  EXPECT_EQ(RedisInteger({"ZCARD", "like:holders"}), 1);
  survivor.Stop();
}

// An entry the record refuses (a user id longer than its column) waits alone: the entries after
// it are applied, it is retried and then dead-lettered; re-driven once, it is dead-lettered
// again, and the reconciler's re-drive leaves it (each dead letter goes back once on its own).
TEST_F(RedisEventsTest, AnEntryTheRecordRefusesIsDeadLetteredAloneAndRedrivenOnce) {
  Set(13, "h", true);
  const uint32_t bucket = app_->core().layout->BucketOf(13, "h");
  const PartitionKeys partition =
      PartitionKeys::For(PartitionOf(13, bucket, app_->core().database->partitions()));
  const int64_t now_us = std::chrono::duration_cast<std::chrono::microseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  ASSERT_NE(RedisText({"XADD", partition.stream, "*", "c", "13", "u", std::string(300, 'x'), "l",
                       "1", "v", std::to_string(now_us), "b", std::to_string(bucket)}),
            "(nil)");
  // The same partition's next change, after the bad one.
  std::string user;
  for (int i = 0; user.empty(); ++i) {
    const std::string u = "i" + std::to_string(i);
    if (PartitionOf(13, app_->core().layout->BucketOf(13, u),
                    app_->core().database->partitions()) ==
        PartitionOf(13, bucket, app_->core().database->partitions())) {
      user = u;
    }
  }
  Set(13, user, true);
  EventWriter writer = Writer(*app_, "w", {.max_failures = 3});
  int64_t dead = 0;
  ASSERT_TRUE(Eventually([&] {
    writer.Step();
    return app_->core().database->CountDeadLetters(&dead).ok() && dead == 1;
  }));
  ASSERT_TRUE(Eventually([&] {
    writer.Step();
    return Pending(13) == 0;
  }));
  ExpectAllLevels(*app_, 13, 2);

  RedriveDeadLettersResponse redriven;
  ASSERT_TRUE(Redrive(app_->core(), 100, false, &redriven).ok());
  EXPECT_EQ(redriven.redriven(), 1);
  EXPECT_EQ(redriven.remaining(), 0);
  ASSERT_TRUE(Eventually([&] {
    writer.Step();
    return app_->core().database->CountDeadLetters(&dead).ok() && dead == 1;
  }));
  std::vector<DeadLetter> letters;
  ASSERT_TRUE(app_->core().database->ListDeadLetters(10, false, &letters).ok());
  ASSERT_EQ(letters.size(), 1u);
  EXPECT_EQ(letters[0].event.redrives, 1);
  ASSERT_TRUE(Redrive(app_->core(), 100, /*never_redriven=*/true, &redriven).ok());
  EXPECT_EQ(redriven.redriven(), 0);  // the reconciler's pass leaves it to an operator
  EXPECT_EQ(redriven.remaining(), 1);
  writer.Stop();
}

TEST_F(RedisEventsTest, ARebuiltBucketKeepsTheVersionBaselineSoAnOldEventCannotWin) {
  const SetLikeResult liked = Set(11, "frank", true);
  ASSERT_TRUE(liked.changed);
  const SetLikeResult unliked = Set(11, "frank", false);
  ASSERT_EQ(Drain(*app_), Status::Ok());
  ASSERT_TRUE(SharedServers::FlushRedis());  // Redis lost everything; the database has it all

  const SetLikeResult again = Set(11, "frank", true);  // loads the bucket from the database
  EXPECT_TRUE(again.changed);
  EXPECT_GT(again.version, unliked.version);
  // The first like's event, arriving late (an old stream replayed), is older than the record.
  int applied = 1;
  int changed = 0;
  ASSERT_TRUE(app_->core()
                  .database
                  ->ApplyBatch({{.content_id = 11,
                                 .user_id = "frank",
                                 .liked = true,
                                 .version = liked.version,
                                 .bucket = liked.bucket}},
                               &applied, &changed)
                  .ok());
  EXPECT_EQ(applied, 0);
  ASSERT_EQ(Drain(*app_), Status::Ok());
  ExpectAllLevels(*app_, 11, 1);
}

// The record holds a version ahead of Redis's clock (a failover to a server whose clock is
// behind): after a rebuild, the next change must still outrank it, or the database would
// ignore it as stale.
TEST_F(RedisEventsTest, AfterARebuildNewVersionsOutrankTheRecordEvenWithRedisClockBehind) {
  const SetLikeResult liked = Set(14, "gina", true);
  ASSERT_EQ(Drain(*app_), Status::Ok());
  const int64_t ahead = liked.version + 1'000'000'000'000;  // ~11.6 days ahead
  int applied = 0;
  int changed = 0;
  ASSERT_TRUE(app_->core()
                  .database
                  ->ApplyBatch({{.content_id = 14,
                                 .user_id = "gina",
                                 .liked = true,
                                 .version = ahead,
                                 .bucket = liked.bucket}},
                               &applied, &changed)
                  .ok());
  ASSERT_EQ(applied, 1);
  ASSERT_TRUE(SharedServers::FlushRedis());
  const SetLikeResult unliked = Set(14, "gina", false);
  ASSERT_TRUE(unliked.changed);
  EXPECT_GT(unliked.version, ahead);
  ASSERT_EQ(Drain(*app_), Status::Ok());
  ExpectAllLevels(*app_, 14, 0);
}

// Unliked pairs keep a version in Redis only until the record has it and it is old: then the
// tombstone goes (the bucket's floor keeps new versions above it), and the version hashes hold
// no more than the likes.
TEST_F(RedisEventsTest, TombstonesTheRecordHoldsAreDroppedAndTheFloorKeepsVersionsAbove) {
  std::vector<SetLikeResult> unlikes;
  for (int i = 0; i < 30; ++i) Set(16, "t" + std::to_string(i), true);
  for (int i = 0; i < 20; ++i) unlikes.push_back(Set(16, "t" + std::to_string(i), false));
  int64_t tombstones_before = 0;
  for (uint32_t p = 0; p < app_->core().database->partitions(); ++p) {
    tombstones_before += RedisInteger({"ZCARD", PartitionKeys::For(p).tombstones});
  }
  EXPECT_EQ(tombstones_before, 20);
  EventWriter writer = Writer(*app_, "w", {.tombstone_keep_ms = 0});
  ASSERT_TRUE(Eventually([&] {
    writer.Step();
    int64_t tombstones = 0;
    for (uint32_t p = 0; p < app_->core().database->partitions(); ++p) {
      tombstones += RedisInteger({"ZCARD", PartitionKeys::For(p).tombstones});
    }
    return Pending(16) == 0 && tombstones == 0;
  }));
  int64_t fields = 0;
  for (uint32_t b = 0; b < app_->core().layout->BucketsOf(16); ++b) {
    fields += RedisInteger({"HLEN", app_->core().redis->KeysOf(16, b).versions});
  }
  EXPECT_LE(fields, 10 + 4);  // the likes' versions and a floor per bucket
  const SetLikeResult again = Set(16, "t0", true);
  EXPECT_TRUE(again.changed);
  EXPECT_GT(again.version, unlikes[0].version);
  ASSERT_TRUE(Eventually([&] {
    writer.Step();
    return Pending(16) == 0;
  }));
  ExpectAllLevels(*app_, 16, 11);
  writer.Stop();
}

// Background work is per partition: a step reads every owned partition in one XREAD, whatever
// the number of contents and buckets Redis holds. Here a million idle buckets (as a drained
// feed of a million contents leaves them) and a few live ones.
TEST_F(RedisEventsTest, AWritersStepCostsTheSameWithAMillionIdleBuckets) {
  for (int i = 0; i < 10; ++i) Set(100 + i, "live", true);
  ASSERT_EQ(Drain(*app_), Status::Ok());
  // A million buckets of a million contents, with their members, versions and markers, made in
  // Redis directly: one script per ten thousand.
  const std::string generation = RedisText({"HGET", PartitionKeys::For(0).generation, "gen"});
  for (int from = 0; from < 1'000'000; from += 10'000) {
    ASSERT_EQ(RedisText({"EVAL", R"lua(
for i = tonumber(ARGV[1]), tonumber(ARGV[1]) + 9999 do
  local prefix = '{lk:0}:' .. (1000000 + i) .. ':0:'
  redis.call('SADD', prefix .. 'm', 'someone')
  redis.call('SET', prefix .. 'n', '1')
  redis.call('HSET', prefix .. 'v', 'someone', '1')
  redis.call('SET', prefix .. 'r', '4@' .. ARGV[2])
end
return 'OK')lua",
                         "0", std::to_string(from), generation}),
              "OK");
  }
  ASSERT_GT(RedisInteger({"DBSIZE"}), 4'000'000);
  EventWriter writer = Writer(*app_, "w");
  writer.Step();  // takes the leases
  Set(100, "more", true);
  const auto calls = [] {
    const std::string info = RedisText({"INFO", "stats"});
    const size_t at = info.find("total_commands_processed:");
    return std::stoll(info.substr(at + 25));
  };
  const long long before = calls();
  writer.Step();
  const long long commands = calls() - before - 1;  // less the INFO itself
  EXPECT_LT(commands, 100);
  EXPECT_EQ(DatabaseLikes(100), 2);
  writer.Stop();
}

}  // namespace
}  // namespace ferry::like::testing
