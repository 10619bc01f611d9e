// Raising a hot content's bucket count while its writers run: on embedded and redis-first,
// with a provider whose layout is stale, through hot detection, and resumed after a raiser
// stopped half way.

#include <gtest/gtest.h>
#include <hiredis.h>

#include <atomic>
#include <random>
#include <thread>

#include "like_test_support.h"
#include "service/reconciler.h"
#include "storage/redis_like_keys.h"

namespace ferry::like::testing {
namespace {

using namespace std::chrono_literals;

class LikeBucketsTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() != "embedded") {
      SharedServers::Start();
      ASSERT_TRUE(SharedServers::FlushRedis());
    }
    config_ = ConfigFor(GetParam(), dir_.path());
    config_.default_buckets = 2;
    // A raise lets the record take a frozen bucket's changes before users move: a writer runs.
    config_.writer_threads = 1;
  }
  std::unique_ptr<LikeApp> Open() {
    std::unique_ptr<LikeApp> app;
    Status s = LikeApp::Create(config_, &app);
    EXPECT_TRUE(s.ok()) << s;
    return app;
  }

  TempDir dir_;
  LikeConfig config_;
};

// Writers (some on a provider that has not heard of the raise) set and unset at random while
// the content goes from 2 to 16 buckets; afterwards every level equals the truth.
TEST_P(LikeBucketsTest, RaisingWhileWritersRunKeepsEveryLevelExact) {
  std::unique_ptr<LikeApp> app = Open();
  ASSERT_NE(app, nullptr);
  std::unique_ptr<LikeApp> stale;
  if (GetParam() != "embedded") stale = Open();  // a second provider, its layout still 2
  Truth truth;
  std::atomic<bool> done{false};
  std::atomic<int> failures{0};
  std::vector<std::thread> writers;
  for (int t = 0; t < 6; ++t) {
    LikeStore* store = (stale && t % 2 == 1 ? stale : app)->core().store;
    writers.emplace_back([&, t, store] {
      std::mt19937 rng(static_cast<uint32_t>(100 + t));
      while (!done) {
        const std::string user = "w" + std::to_string(t) + "-" + std::to_string(rng() % 60);
        const bool liked = rng() % 3 != 0;
        SetLikeResult result;
        Status s = store->SetLike(1, user, liked, "", &result);
        if (!s.ok()) {
          if (failures++ == 0) ADD_FAILURE() << s;
          continue;
        }
        truth.Set(1, user, liked);
      }
    });
  }
  for (uint32_t buckets : {4u, 8u, 16u}) {
    std::this_thread::sleep_for(50ms);  // let writes land in the current layout first
    Status s = app->core().store->RaiseBuckets(1, buckets);
    ASSERT_TRUE(s.ok()) << s;
  }
  std::this_thread::sleep_for(50ms);
  done = true;
  for (auto& w : writers) w.join();
  ASSERT_EQ(failures.load(), 0);
  EXPECT_EQ(app->core().layout->BucketsOf(1), 16u);
  ASSERT_EQ(Drain(*app), Status::Ok());
  ExpectAllLevels(*app, 1, truth.Count(1));
  std::vector<ContentCounts> counts;
  const int64_t ids[] = {1};
  ASSERT_TRUE(app->core().store->Counts(ids, &counts).ok());
  ASSERT_EQ(counts[0].buckets.size(), 16u);
  // Redis moved the users with the raise; embedded's count rows keep each like where it was
  // counted (only new likes reach the new buckets), never below zero.
  for (size_t b = 0; b < counts[0].buckets.size(); ++b) {
    EXPECT_GE(counts[0].buckets[b], GetParam() == "embedded" ? 0 : 1) << "bucket " << b;
  }
  if (stale) {
    ASSERT_TRUE(stale->core().store->Counts(ids, &counts).ok());
    EXPECT_EQ(counts[0].total(), truth.Count(1));  // read across the raise
    // It learns the raise from the record, asking at most once a second per content.
    EXPECT_TRUE(Eventually([&] {
      return stale->core().store->Counts(ids, &counts).ok() &&
             stale->core().layout->BucketsOf(1) == 16u;
    }));
    std::unique_ptr<LikeApp> later = Open();  // a provider started afterwards reads it
    EXPECT_EQ(later->core().layout->BucketsOf(1), 16u);
  }
}

TEST_P(LikeBucketsTest, AContentDetectedHotGetsMoreBuckets) {
  config_.raise_above_writes_per_s = 50;
  config_.max_buckets = 8;
  InProcessProvider provider;
  provider.Start(config_);
  Truth truth;
  int i = 0;
  const bool raised = Eventually(
      [&] {
        for (int n = 0; n < 100; ++n, ++i) {
          const std::string user = "hot" + std::to_string(i % 500);
          SetLikeRequest request;
          request.set_content_id(3);
          request.set_liked(i % 7 != 0);
          auto r = provider.proxy().SetLike(request, AsUser(user));
          if (!r.ok()) {
            ADD_FAILURE() << r.status();
            return true;
          }
          truth.Set(3, user, request.liked());
        }
        return provider.app().core().layout->BucketsOf(3) == 8;
      },
      30s, 1ms);
  EXPECT_TRUE(raised) << "buckets: " << provider.app().core().layout->BucketsOf(3);
  EXPECT_EQ(provider.app().core().layout->BucketsOf(4), 2u);  // others keep theirs
  ASSERT_EQ(Drain(provider.app()), Status::Ok());
  ExpectAllLevels(provider.app(), 3, truth.Count(3));
}

INSTANTIATE_TEST_SUITE_P(Backends, LikeBucketsTest, ::testing::Values("embedded", "redis+mariadb"),
                         [](const auto& info) {
                           return info.param == "embedded" ? std::string("Embedded")
                                                           : std::string("RedisFirst");
                         });

// A raiser that froze a bucket and died: the next writer of that bucket finishes the raise.
TEST(LikeBucketsResumeTest, ARaiseStoppedHalfWayIsFinishedByTheNextWriter) {
  SharedServers::Start();
  ASSERT_TRUE(SharedServers::FlushRedis());
  LikeConfig config = RedisMariaDbConfig(FreshDatabaseName("like_resume"));
  config.default_buckets = 2;
  config.writer_threads = 1;
  std::unique_ptr<LikeApp> app;
  ASSERT_TRUE(LikeApp::Create(config, &app).ok());
  Truth truth;
  std::string in_bucket_zero;
  for (int i = 0; i < 40; ++i) {
    const std::string user = "r" + std::to_string(i);
    SetLikeResult result;
    ASSERT_TRUE(app->core().store->SetLike(5, user, true, "", &result).ok());
    truth.Set(5, user, true);
    if (result.bucket == 0) in_bucket_zero = user;
  }
  ASSERT_FALSE(in_bucket_zero.empty());
  const BucketKeys keys = app->core().redis->KeysOf(5, 0);
  const std::string generation = RedisText({"HGET", keys.partition_keys().generation, "gen"});
  ASSERT_EQ(RedisText({"SET", keys.ready, "m:4@" + generation}), "OK");  // frozen, then nothing

  SetLikeResult result;
  Status s = app->core().store->SetLike(5, in_bucket_zero, false, "", &result);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_TRUE(result.changed);
  truth.Set(5, in_bucket_zero, false);
  EXPECT_EQ(app->core().layout->BucketsOf(5), 4u);
  ASSERT_EQ(Drain(*app), Status::Ok());
  ExpectAllLevels(*app, 5, truth.Count(5));
}

TEST(LikeBucketsResumeTest, ALayoutChangedByConfigurationIsRefusedUntilRepaired) {
  SharedServers::Start();
  ASSERT_TRUE(SharedServers::FlushRedis());
  LikeConfig config = RedisMariaDbConfig(FreshDatabaseName("like_relayout"));
  config.default_buckets = 4;
  std::unique_ptr<LikeApp> before;
  ASSERT_TRUE(LikeApp::Create(config, &before).ok());
  for (int i = 0; i < 30; ++i) {
    SetLikeResult result;
    ASSERT_TRUE(before->core().store->SetLike(6, "q" + std::to_string(i), true, "", &result).ok());
  }
  ASSERT_EQ(Drain(*before), Status::Ok());
  before.reset();

  config.hot[6] = 8;  // more buckets, by configuration (no raise moved the users)
  std::unique_ptr<LikeApp> after;
  ASSERT_TRUE(LikeApp::Create(config, &after).ok());
  SetLikeResult result;
  Status refused = after->core().store->SetLike(6, "q0", false, "", &result);
  EXPECT_EQ(refused.code(), StatusCode::FAILED_PRECONDITION) << refused;
  EXPECT_NE(refused.message().find("Reconcile"), std::string::npos) << refused;
  ReconcileResponse report;
  ASSERT_TRUE(Reconcile(after->core(), 6, true, &report).ok());
  Status s = after->core().store->SetLike(6, "q0", false, "", &result);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_TRUE(result.changed);
  ASSERT_EQ(Drain(*after), Status::Ok());
  ExpectAllLevels(*after, 6, 29);
}

// Repeats (a SetLike of the state already held) and replays (a request id seen before) change
// nothing, so they do not make a content hot; real changes do.
TEST(LikeHotTest, NoOpAndReplayedSetLikesDoNotMakeAContentHot) {
  TempDir dir;
  LikeConfig config = EmbeddedConfig(dir.path());
  config.raise_above_writes_per_s = 5;
  InProcessProvider provider;
  provider.Start(config);
  for (int i = 0; i < 50; ++i) {
    SetLikeRequest request;
    request.set_content_id(8);
    request.set_liked(false);  // never liked: nothing changes
    ASSERT_TRUE(provider.proxy().SetLike(request, AsUser("n" + std::to_string(i))).ok());
  }
  SetLikeRequest replayed;
  replayed.set_content_id(8);
  replayed.set_liked(true);
  replayed.set_request_id("once");
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(provider.proxy().SetLike(replayed, AsUser("r")).ok());
  EXPECT_EQ(provider.app().core().hot->noted(), 1u);  // the replayed request's first call
  EXPECT_EQ(provider.app().core().layout->BucketsOf(8), config.default_buckets);
}

// A frozen bucket (a raise under way, here one whose raiser is gone) stops its writers, not its
// readers: counts and states are read in the old layout, and no read waits for the raise or
// finishes it.
TEST(LikeBucketsResumeTest, ReadsOfAContentBeingRaisedDoNotWaitForTheRaise) {
  SharedServers::Start();
  ASSERT_TRUE(SharedServers::FlushRedis());
  LikeConfig config = RedisMariaDbConfig(FreshDatabaseName("like_frozen"));
  config.default_buckets = 2;
  std::unique_ptr<LikeApp> app;
  ASSERT_TRUE(LikeApp::Create(config, &app).ok());
  std::vector<std::string> in_zero;
  for (int i = 0; i < 30; ++i) {
    const std::string user = "z" + std::to_string(i);
    SetLikeResult result;
    ASSERT_TRUE(app->core().store->SetLike(7, user, true, "", &result).ok());
    if (result.bucket == 0) in_zero.push_back(user);
  }
  ASSERT_FALSE(in_zero.empty());
  const BucketKeys keys = app->core().redis->KeysOf(7, 0);
  const std::string generation = RedisText({"HGET", keys.partition_keys().generation, "gen"});
  ASSERT_EQ(RedisText({"SET", keys.ready, "m:4@" + generation}), "OK");
  EXPECT_EQ(StoreTotal(*app, 7), 30);
  std::vector<bool> liked;
  const int64_t ids[] = {7};
  ASSERT_TRUE(app->core().store->HasLiked(in_zero[0], ids, &liked).ok());
  EXPECT_TRUE(liked[0]);
  EXPECT_EQ(RedisText({"GET", keys.ready}), "m:4@" + generation);  // still frozen
  EXPECT_EQ(app->core().layout->BucketsOf(7), 2u);
}

// A content's buckets load from one read of its rows, and a count of many cold contents loads
// them all in one batch: a fixed number of queries, not one (or more) per content.
TEST(LikeBucketsResumeTest, AHundredColdContentsLoadInOneBatch) {
  SharedServers::Start();
  ASSERT_TRUE(SharedServers::FlushRedis());
  LikeConfig config = RedisMariaDbConfig(FreshDatabaseName("like_cold"));
  std::unique_ptr<LikeApp> app;
  ASSERT_TRUE(LikeApp::Create(config, &app).ok());
  std::vector<int64_t> ids;
  for (int64_t c = 1000; c < 1100; ++c) {
    ids.push_back(c);
    for (int u = 0; u < 3; ++u) {
      SetLikeResult result;
      ASSERT_TRUE(app->core().store->SetLike(c, "c" + std::to_string(u), true, "", &result).ok());
    }
  }
  ASSERT_EQ(Drain(*app), Status::Ok());
  ASSERT_TRUE(SharedServers::FlushRedis());  // every bucket cold
  // The same store over a database whose queries are counted.
  std::atomic<int> queries{0};
  LikeDatabase counted(CountingPool(config.mariadb, &queries), config.partitions);
  RedisLikeStore store(&app->core().redis->pool(), &counted, app->core().layout, app->generation(),
                       {.partitions = config.partitions});
  ASSERT_TRUE(store.Connect().ok());
  std::vector<ContentCounts> counts;
  ASSERT_TRUE(store.Counts(ids, &counts).ok());
  for (const ContentCounts& c : counts) EXPECT_EQ(c.total(), 3);
  EXPECT_LE(queries.load(), 3);  // the counts, the layouts, the rows
  queries = 0;
  ASSERT_TRUE(store.Counts(ids, &counts).ok());
  EXPECT_EQ(queries.load(), 0);  // loaded: Redis answers
}

// A request id remembered in a bucket moves with its user when a raise moves the user: a late
// retry after the raise still answers its first result and undoes nothing.
TEST(LikeBucketsResumeTest, AReplayAfterARaiseUndoesNothing) {
  SharedServers::Start();
  ASSERT_TRUE(SharedServers::FlushRedis());
  LikeConfig config = RedisMariaDbConfig(FreshDatabaseName("like_replay"));
  config.default_buckets = 2;
  config.writer_threads = 1;
  std::unique_ptr<LikeApp> app;
  ASSERT_TRUE(LikeApp::Create(config, &app).ok());
  std::string mover;
  for (int i = 0; mover.empty(); ++i) {
    const std::string u = "m" + std::to_string(i);
    if (BucketLayout::BucketIn(u, 4) >= 2) mover = u;  // moves to bucket k + 2 in the raise
  }
  LikeStore& store = *app->core().store;
  SetLikeResult result;
  ASSERT_TRUE(store.SetLike(9, mover, true, "r1", &result).ok());
  ASSERT_TRUE(result.changed);
  ASSERT_TRUE(store.SetLike(9, mover, false, "r2", &result).ok());
  ASSERT_TRUE(result.changed);
  Status raised = store.RaiseBuckets(9, 4);
  ASSERT_TRUE(raised.ok()) << raised;
  ASSERT_TRUE(store.SetLike(9, mover, true, "r1", &result).ok());  // the late retry
  EXPECT_TRUE(result.replayed);
  EXPECT_TRUE(result.changed);  // r1's first answer
  std::vector<bool> liked;
  const int64_t ids[] = {9};
  ASSERT_TRUE(store.HasLiked(mover, ids, &liked).ok());
  EXPECT_FALSE(liked[0]);
  ASSERT_EQ(Drain(*app), Status::Ok());
  ExpectAllLevels(*app, 9, 0);
}

}  // namespace
}  // namespace ferry::like::testing
