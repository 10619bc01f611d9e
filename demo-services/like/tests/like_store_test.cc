// The storage behaviour both backends owe (embedded: SQLite; redis+mariadb: Redis buckets, their
// streams and MariaDB), run against each through one LikeStore and the database of record.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <thread>

#include "like_test_support.h"

namespace ferry::like::testing {
namespace {

class LikeStoreTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() != "embedded") {
      SharedServers::Start();
      ASSERT_TRUE(SharedServers::FlushRedis());
    }
  }
  void Open(LikeConfig config) {
    Status s = LikeApp::Create(config, &app_);
    ASSERT_TRUE(s.ok()) << s;
  }
  void Open() { Open(ConfigFor(GetParam(), dir_.path())); }
  LikeStore& store() { return *app_->core().store; }
  SetLikeResult Set(int64_t content, const std::string& user, bool liked) {
    SetLikeResult result;
    Status s = store().SetLike(content, user, liked, "", &result);
    EXPECT_TRUE(s.ok()) << s;
    return result;
  }
  // The store's total, once the outbox reached Redis (database-first counts follow the relay).
  int64_t Total(int64_t content) {
    EXPECT_TRUE(app_->DrainOutbox("test").ok());
    return StoreTotal(*app_, content);
  }

  TempDir dir_;
  std::unique_ptr<LikeApp> app_;
};

TEST_P(LikeStoreTest, ExplicitStateMovesTheCountOnlyOnARealChange) {
  Open();
  SetLikeResult first = Set(7, "alice", true);
  EXPECT_TRUE(first.changed);
  EXPECT_EQ(first.bucket_count, 1);
  SetLikeResult again = Set(7, "alice", true);  // a retry of the same request
  EXPECT_FALSE(again.changed);
  EXPECT_EQ(again.version, first.version);
  EXPECT_EQ(Total(7), 1);
  SetLikeResult off = Set(7, "alice", false);
  EXPECT_TRUE(off.changed);
  EXPECT_GT(off.version, first.version);
  EXPECT_FALSE(Set(7, "alice", false).changed);
  EXPECT_FALSE(Set(7, "bob", false).changed);  // never liked: the count does not go negative
  EXPECT_EQ(Total(7), 0);
  ASSERT_EQ(Drain(*app_), Status::Ok());
  ExpectAllLevels(*app_, 7, 0);
}

TEST_P(LikeStoreTest, HasLikedReadsTheUsersOwnState) {
  Open();
  Set(1, "carol", true);
  Set(3, "carol", true);
  Set(3, "carol", false);
  Set(2, "dave", true);
  std::vector<bool> liked;
  const std::vector<int64_t> contents = {1, 2, 3, 4};
  ASSERT_TRUE(store().HasLiked("carol", contents, &liked).ok());
  EXPECT_EQ(liked, (std::vector<bool>{true, false, false, false}));
}

// Lists are newest first (the order users see on a feed), paged without gaps or repeats.
TEST_P(LikeStoreTest, ListsPageThroughTheRecordNewestFirst) {
  Open();
  for (int i = 0; i < 25; ++i) Set(5, "u" + std::to_string(100 + i), true);
  Set(5, "u105", false);
  for (int c = 1; c <= 12; ++c) Set(c, "eve", true);
  Set(3, "eve", false);
  Set(3, "eve", true);  // liked again: now the newest of eve's
  ASSERT_EQ(Drain(*app_), Status::Ok());
  LikeDatabase& db = *app_->core().database;
  std::vector<std::pair<std::string, int64_t>> all;
  int64_t after_version = 0;
  std::string after_user;
  while (true) {
    std::vector<std::pair<std::string, int64_t>> page;
    ASSERT_TRUE(db.ListLikers(5, after_version, after_user, 10, &page).ok());
    all.insert(all.end(), page.begin(), page.end());
    if (page.size() < 10) break;
    after_version = page.back().second;
    after_user = page.back().first;
  }
  ASSERT_EQ(all.size(), 25u);           // u100..u124 but u105, and eve
  EXPECT_EQ(all.front().first, "eve");  // the last to like it
  EXPECT_EQ(all.back().first, "u100");
  for (size_t i = 1; i < all.size(); ++i) EXPECT_GT(all[i - 1].second, all[i].second);
  for (const auto& [user, version] : all) EXPECT_NE(user, "u105");
  std::vector<std::pair<int64_t, int64_t>> contents;
  ASSERT_TRUE(db.ListLiked("eve", 0, 0, 100, &contents).ok());
  std::vector<int64_t> ids;
  for (const auto& [content, version] : contents) ids.push_back(content);
  EXPECT_EQ(ids, (std::vector<int64_t>{3, 12, 11, 10, 9, 8, 7, 6, 5, 4, 2, 1}));
  ASSERT_TRUE(db.ListLiked("eve", contents[4].second, contents[4].first, 100, &contents).ok());
  EXPECT_EQ(contents.front().first, 8);
}

// Many users over a few hot contents set and unset at random, with duplicates and retries.
// Each user's calls come from one thread, so the test knows the last state of every pair.
TEST_P(LikeStoreTest, StormThenDrainCountsEqualTheLastStatesOnEveryLevel) {
  LikeConfig config = ConfigFor(GetParam(), dir_.path());
  config.default_buckets = 4;
  config.hot[1] = 16;
  Open(config);
  constexpr int kThreads = 8;
  constexpr int kUsersPerThread = 40;
  constexpr int kCalls = 400;
  const std::vector<int64_t> contents = {1, 2, 3};
  Truth truth;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(static_cast<uint32_t>(t + 1));
      for (int i = 0; i < kCalls; ++i) {
        const std::string user =
            "user-" + std::to_string(t) + "-" + std::to_string(rng() % kUsersPerThread);
        const int64_t content = contents[rng() % contents.size()];
        const bool liked = rng() % 3 != 0;
        const int repeats = 1 + static_cast<int>(rng() % 3);  // the call and its retries
        for (int r = 0; r < repeats; ++r) {
          SetLikeResult result;
          Status s = store().SetLike(content, user, liked, "", &result);
          if (!s.ok() && failures++ == 0) ADD_FAILURE() << s;
        }
        truth.Set(content, user, liked);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  ASSERT_EQ(failures.load(), 0);
  ASSERT_EQ(Drain(*app_), Status::Ok());
  for (int64_t content : contents) {
    EXPECT_EQ(Total(content), truth.Count(content)) << "content " << content;
    ExpectAllLevels(*app_, content, truth.Count(content));
  }
}

// Thousands of users like one hot content at once; its buckets share the writes.
TEST_P(LikeStoreTest, HotContentWithThousandsOfConcurrentLikers) {
  LikeConfig config = ConfigFor(GetParam(), dir_.path());
  config.hot[42] = 16;
  Open(config);
  constexpr int kThreads = 16;
  constexpr int kUsers = 3000;
  std::atomic<int> next{0};
  std::atomic<int> changed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = next++; i < kUsers; i = next++) {
        SetLikeResult result;
        Status s = store().SetLike(42, "fan-" + std::to_string(i), true, "", &result);
        if (s.ok() && result.changed) ++changed;
        if (!s.ok() && changed.load() >= 0) ADD_FAILURE() << s;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(changed.load(), kUsers);
  ASSERT_EQ(Drain(*app_), Status::Ok());
  std::vector<ContentCounts> counts;
  const int64_t ids[] = {42};
  ASSERT_TRUE(store().Counts(ids, &counts).ok());
  ASSERT_EQ(counts[0].layout, 16u);
  ASSERT_EQ(counts[0].buckets.size(), 16u);
  for (size_t b = 0; b < counts[0].buckets.size(); ++b) {
    EXPECT_GT(counts[0].buckets[b], kUsers / 16 / 2) << "bucket " << b << " got too few likers";
  }
  ASSERT_EQ(Drain(*app_), Status::Ok());
  ExpectAllLevels(*app_, 42, kUsers);
}

INSTANTIATE_TEST_SUITE_P(Backends, LikeStoreTest,
                         ::testing::Values("embedded", "redis+mariadb", "database-first"),
                         [](const auto& info) {
                           return info.param == "embedded"        ? std::string("Embedded")
                                  : info.param == "redis+mariadb" ? std::string("RedisFirst")
                                                                  : std::string("DatabaseFirst");
                         });

}  // namespace
}  // namespace ferry::like::testing
