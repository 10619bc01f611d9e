// The event path of redis-first: versioned events applied to the database converge whatever
// the order and however often they arrive; a rebuilt Redis bucket keeps its version baseline;
// entries of a dead consumer are reclaimed; an entry that keeps failing is dead-lettered.

#include <gtest/gtest.h>
#include <hiredis.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <thread>

#include "like_test_support.h"
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
            : MariaDbLikePool(RedisMariaDbConfig(FreshDatabaseName("like_ev")).mariadb, 4));
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
    bool applied = false;
    bool changed = false;
    ASSERT_TRUE(in_order->Apply(e, &applied, &changed).ok());
    EXPECT_TRUE(applied);
  }
  std::vector<LikeEvent> twice = events;
  twice.insert(twice.end(), events.begin(), events.end());
  std::shuffle(twice.begin(), twice.end(), rng);
  int applied_count = 0;
  for (const LikeEvent& e : twice) {
    bool applied = false;
    bool changed = false;
    ASSERT_TRUE(shuffled->Apply(e, &applied, &changed).ok());
    applied_count += applied ? 1 : 0;
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
    DatabaseCounts counts;
    ASSERT_TRUE(db->Counts(9, &counts).ok());
    EXPECT_EQ(counts.likes, expected);
    EXPECT_EQ(counts.counted, expected);
    std::vector<std::string> likers;
    ASSERT_TRUE(db->ListLikers(9, "", 1000, &likers).ok());
    for (const std::string& user : likers) EXPECT_TRUE(last[user]) << user;
    for (uint32_t b = 0; b < 4; ++b) {
      std::vector<LikeRow> rows;
      ASSERT_TRUE(db->BucketRows(9, b, 4, &rows).ok());
      for (const LikeRow& row : rows) EXPECT_EQ(row.liked, last[row.user_id]) << row.user_id;
    }
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
  DatabaseCounts counts;
  ASSERT_TRUE(db->Counts(40, &counts).ok());
  EXPECT_EQ(counts.likes, kRounds * kPairs);
  EXPECT_EQ(counts.counted, kRounds * kPairs);
}

TEST_P(LikeEventsTest, AStaleEventChangesNothing) {
  std::unique_ptr<LikeDatabase> db = OpenDatabase();
  bool applied = false;
  bool changed = false;
  ASSERT_TRUE(db->Apply({.content_id = 3, .user_id = "u", .liked = false, .version = 20}, &applied,
                        &changed)
                  .ok());
  EXPECT_TRUE(applied);
  EXPECT_FALSE(changed);  // not liked before either: no count row moves
  ASSERT_TRUE(
      db->Apply({.content_id = 3, .user_id = "u", .liked = true, .version = 19}, &applied, &changed)
          .ok());
  EXPECT_FALSE(applied);
  DatabaseCounts counts;
  ASSERT_TRUE(db->Counts(3, &counts).ok());
  EXPECT_EQ(counts.likes, 0);
  EXPECT_EQ(counts.counted, 0);
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
    Status s = LikeApp::Create(RedisMariaDbConfig(database_), &app_);
    ASSERT_TRUE(s.ok()) << s;
  }
  SetLikeResult Set(int64_t content, const std::string& user, bool liked) {
    SetLikeResult result;
    Status s = app_->core().store->SetLike(content, user, liked, "", &result);
    EXPECT_TRUE(s.ok()) << s;
    return result;
  }
  // Runs one command on the shared Redis; its reply's integer (or -1).
  long long Redis(const std::vector<std::string>& args) {
    const timeval timeout{.tv_sec = 5, .tv_usec = 0};
    redisContext* c = redisConnectWithTimeout(SharedServers::redis().host().c_str(),
                                              SharedServers::redis().port(), timeout);
    std::vector<const char*> argv;
    std::vector<size_t> lens;
    for (const std::string& a : args) {
      argv.push_back(a.data());
      lens.push_back(a.size());
    }
    auto* reply = static_cast<redisReply*>(
        redisCommandArgv(c, static_cast<int>(args.size()), argv.data(), lens.data()));
    long long value = reply != nullptr && reply->type == REDIS_REPLY_INTEGER ? reply->integer : -1;
    if (reply != nullptr) freeReplyObject(reply);
    redisFree(c);
    return value;
  }
  int64_t DatabaseLikes(int64_t content) {
    DatabaseCounts counts;
    Status s = app_->core().database->Counts(content, &counts);
    EXPECT_TRUE(s.ok()) << s;
    return counts.likes;
  }
  const std::string database_ = FreshDatabaseName("like_rs");
  std::unique_ptr<LikeApp> app_;
};

// A writer reads at once what its own process appended, and another provider's entries (whose
// appends it was never told of) on its sweep of every stream.
TEST_F(RedisEventsTest, AWriterReadsItsProcessesAppendsAtOnceAndTheRestOnItsSweep) {
  EventWriter writer(app_->stream(), app_->core().database,
                     {.consumer = "w", .sweep_ms = 3'600'000, .claim_idle_ms = 3'600'000});
  EXPECT_FALSE(writer.Step());  // the first step sweeps: nothing yet
  Set(15, "ida", true);
  writer.Step();
  EXPECT_EQ(DatabaseLikes(15), 1);

  std::unique_ptr<LikeApp> other;
  ASSERT_TRUE(LikeApp::Create(RedisMariaDbConfig(database_), &other).ok());
  SetLikeResult result;
  ASSERT_TRUE(other->core().store->SetLike(15, "jack", true, "", &result).ok());
  ASSERT_TRUE(result.changed);
  EXPECT_FALSE(writer.Step());  // not appended here, and no sweep due
  EXPECT_EQ(DatabaseLikes(15), 1);

  EventWriter sweeping(app_->stream(), app_->core().database, {.consumer = "w2", .sweep_ms = 1});
  sweeping.Step();
  EXPECT_EQ(DatabaseLikes(15), 2);
  ExpectAllLevels(*app_, 15, 2);
}

TEST_F(RedisEventsTest, ARebuiltBucketKeepsTheVersionBaselineSoAnOldEventCannotWin) {
  const SetLikeResult liked = Set(11, "frank", true);
  ASSERT_TRUE(liked.changed);
  const SetLikeResult unliked = Set(11, "frank", false);
  ASSERT_TRUE(Drain(*app_).ok());
  ASSERT_TRUE(SharedServers::FlushRedis());  // Redis lost everything; the database has it all

  const SetLikeResult again = Set(11, "frank", true);  // loads the bucket from the database
  EXPECT_TRUE(again.changed);
  EXPECT_GT(again.version, unliked.version);
  // The first like's event, arriving late (an old stream replayed), is older than the record.
  bool applied = true;
  bool changed = false;
  ASSERT_TRUE(app_->core()
                  .database
                  ->Apply({.content_id = 11,
                           .user_id = "frank",
                           .liked = true,
                           .version = liked.version,
                           .bucket = liked.bucket},
                          &applied, &changed)
                  .ok());
  EXPECT_FALSE(applied);
  ASSERT_TRUE(Drain(*app_).ok());
  ExpectAllLevels(*app_, 11, 1);
}

// The record holds a version ahead of Redis's clock (a failover to a server whose clock is
// behind): after a rebuild, the next change must still outrank it, or the database would
// ignore it as stale.
TEST_F(RedisEventsTest, AfterARebuildNewVersionsOutrankTheRecordEvenWithRedisClockBehind) {
  const SetLikeResult liked = Set(14, "gina", true);
  ASSERT_TRUE(Drain(*app_).ok());
  const int64_t ahead = liked.version + 1'000'000'000'000;  // ~11.6 days ahead
  bool applied = false;
  bool changed = false;
  ASSERT_TRUE(app_->core()
                  .database
                  ->Apply({.content_id = 14,
                           .user_id = "gina",
                           .liked = true,
                           .version = ahead,
                           .bucket = liked.bucket},
                          &applied, &changed)
                  .ok());
  ASSERT_TRUE(applied);
  ASSERT_TRUE(SharedServers::FlushRedis());
  const SetLikeResult unliked = Set(14, "gina", false);
  ASSERT_TRUE(unliked.changed);
  EXPECT_GT(unliked.version, ahead);
  ASSERT_TRUE(Drain(*app_).ok());
  ExpectAllLevels(*app_, 14, 0);
}

TEST_F(RedisEventsTest, ADeadConsumersEntriesAreReclaimed) {
  for (int i = 0; i < 50; ++i) Set(12, "g" + std::to_string(i), true);
  std::vector<LikeEvent> taken;
  ASSERT_TRUE(app_->stream()->Read("doomed", 1000, RedisEventStream::Scope::kEvery, &taken).ok());
  ASSERT_EQ(taken.size(), 50u);  // delivered to a consumer that dies without acknowledging
  ASSERT_TRUE(Drain(*app_).ok());
  ReconcileResponse report;
  ASSERT_TRUE(Reconcile(app_->core(), 12, false, &report).ok());
  EXPECT_EQ(report.pending_events(), 50);
  EXPECT_EQ(report.database_likes(), 0);

  EventWriter survivor(app_->stream(), app_->core().database,
                       {.consumer = "survivor", .claim_idle_ms = 1});
  ASSERT_TRUE(Eventually([&] {
    survivor.Step();
    return Reconcile(app_->core(), 12, false, &report).ok() && report.pending_events() == 0;
  }));
  ExpectAllLevels(*app_, 12, 50);
}

TEST_F(RedisEventsTest, AnEntryThatKeepsFailingIsDeadLettered) {
  Set(13, "h", true);  // registers the bucket's stream
  const BucketKeys keys = BucketKeys::For(13, app_->core().layout->BucketOf(13, "h"));
  // A user id longer than the database's column: every apply fails.
  Redis({"XADD", keys.events, "*", "c", "13", "u", std::string(300, 'x'), "l", "1", "v", "5", "b",
         "0"});
  EventWriter writer(app_->stream(), app_->core().database,
                     {.consumer = "w", .claim_idle_ms = 1, .max_deliveries = 3});
  ASSERT_TRUE(Eventually([&] {
    writer.Step();
    int64_t dead = 0;
    return app_->core().database->CountDeadLetters(&dead).ok() && dead == 1;
  }));
  ExpectAllLevels(*app_, 13, 1);
}

}  // namespace
}  // namespace ferry::like::testing
