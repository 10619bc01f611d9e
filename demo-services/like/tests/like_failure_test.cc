// redis+mariadb failures: the event writer process SIGKILLed mid-stream and replaced, and Redis
// restarted empty mid-storm (buckets rebuilt from the database); what redis-first loses when
// Redis dies before persisting, and what database-first keeps.

#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "like_test_support.h"
#include "ready_process.h"
#include "service/reconciler.h"

namespace ferry::like::testing {
namespace {

using namespace std::chrono_literals;

std::string ServerYaml(const LikeConfig& c, int writer_threads) {
  std::ostringstream y;
  y << "log:\n  level: warn\n"
    << "server:\n  listen: 127.0.0.1:0\n"
    << "service:\n  backend: redis+mariadb\n"
    << "  redis:\n    host: " << c.redis_host << "\n    port: " << c.redis_port
    << "\n    timeout_ms: 5000\n"
    << "  mariadb:\n    host: " << c.mariadb.host << "\n    port: " << c.mariadb.port
    << "\n    user: " << c.mariadb.user << "\n    database: " << c.mariadb.database
    << "\n    timeout_ms: 20000\n"
    << "  partitions: " << c.partitions << "\n"
    << "  event_writer:\n    threads: " << writer_threads << "\n    batch: 16\n    lease_ms: 500\n";
  return y.str();
}

// Random set/unset (with retries) of `users` users over `contents`, by `threads` threads that
// each own a slice of the users, so the truth knows every pair's last state.
void Storm(LikeStore& store, Truth& truth, const std::vector<int64_t>& contents, int threads,
           int users, int calls, uint32_t seed, std::atomic<int>* failures) {
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      std::mt19937 rng(seed + static_cast<uint32_t>(t));
      for (int i = 0; i < calls; ++i) {
        const std::string user = "s" + std::to_string(t) + "-" + std::to_string(rng() % users);
        const int64_t content = contents[rng() % contents.size()];
        const bool liked = rng() % 3 != 0;
        for (int r = 0; r < 1 + static_cast<int>(rng() % 2); ++r) {
          SetLikeResult result;
          if (!store.SetLike(content, user, liked, "", &result).ok()) ++*failures;
        }
        truth.Set(content, user, liked);
      }
    });
  }
  for (auto& w : workers) w.join();
}

int64_t Pending(LikeApp& app, const std::vector<int64_t>& contents) {
  int64_t pending = 0;
  for (int64_t content : contents) {
    ReconcileResponse report;
    if (!Reconcile(app.core(), content, false, &report).ok()) return -1;
    pending += report.pending_events();
  }
  return pending;
}

class LikeFailureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SharedServers::Start();
    ASSERT_TRUE(SharedServers::FlushRedis());
    config_ = RedisMariaDbConfig(FreshDatabaseName("like_fail"));
  }
  std::vector<std::string> ServerArgs(const std::string& name, int writer_threads) {
    const std::filesystem::path path = dir_.path() / (name + ".yaml");
    std::ofstream(path) << ServerYaml(config_, writer_threads);
    return {LIKE_SERVER_BINARY, "--config", path.string()};
  }

  TempDir dir_;
  LikeConfig config_;
};

TEST_F(LikeFailureTest, TheEventWriterKilledMidStreamLosesNothing) {
  std::unique_ptr<LikeApp> app;
  ASSERT_TRUE(LikeApp::Create(config_, &app).ok());  // accepts likes; persists nothing itself
  testsupport::ReadyProcess writer;
  ASSERT_TRUE(writer.Start(ServerArgs("writer", 2), "like-server"));

  const std::vector<int64_t> contents = {1, 2, 3};
  Truth truth;
  std::atomic<int> failures{0};
  std::thread storm([&] { Storm(*app->core().store, truth, contents, 6, 60, 600, 7, &failures); });
  // Mid-stream: some events persisted, others still in the streams or in the writer's hands.
  ASSERT_TRUE(Eventually([&] {
    ContentRecord record;
    return app->core().database->ContentSnapshot(1, {}, &record).ok() && record.likes > 20;
  }));
  writer.Kill();
  storm.join();
  ASSERT_EQ(failures.load(), 0);
  ASSERT_GT(Pending(*app, contents), 0);

  testsupport::ReadyProcess replacement;  // reclaims the dead writer's entries
  ASSERT_TRUE(replacement.Start(ServerArgs("replacement", 2), "like-server"));
  ASSERT_TRUE(Eventually([&] { return Pending(*app, contents) == 0; }, 30s));
  for (int64_t content : contents) ExpectAllLevels(*app, content, truth.Count(content));
}

TEST_F(LikeFailureTest, RedisRestartedEmptyIsRebuiltFromTheDatabase) {
  config_.writer_threads = 2;
  std::unique_ptr<LikeApp> app;
  ASSERT_TRUE(LikeApp::Create(config_, &app).ok());
  const std::vector<int64_t> contents = {4, 5};
  Truth truth;
  std::atomic<int> failures{0};
  Storm(*app->core().store, truth, contents, 4, 50, 300, 11, &failures);
  ASSERT_TRUE(Eventually([&] { return Pending(*app, contents) == 0; }));

  ASSERT_TRUE(SharedServers::redis().RestartEmpty());
  // What a user liked before is still liked: the bucket is loaded from the database.
  SetLikeResult again;
  std::string liker;
  std::vector<std::pair<std::string, int64_t>> likers;
  ASSERT_TRUE(app->core().database->ListLikers(4, 0, "", 1, &likers).ok());
  ASSERT_EQ(likers.size(), 1u);
  ASSERT_TRUE(app->core().store->SetLike(4, likers[0].first, true, "", &again).ok());
  EXPECT_FALSE(again.changed);

  Storm(*app->core().store, truth, contents, 4, 50, 300, 12, &failures);
  ASSERT_EQ(failures.load(), 0);
  ASSERT_TRUE(Eventually([&] { return Pending(*app, contents) == 0; }));
  for (int64_t content : contents) ExpectAllLevels(*app, content, truth.Count(content));
}

// Redis-first confirms a like once Redis holds it: Redis dying before the writers persisted it
// loses it (README, "What redis-first can lose"). Database-first confirms after the commit.
TEST_F(LikeFailureTest, RedisFirstLosesUnpersistedLikesWhenRedisDiesDatabaseFirstDoesNot) {
  for (const std::string mode : {"redis-first", "database-first"}) {
    SCOPED_TRACE(mode);
    LikeConfig config = RedisMariaDbConfig(FreshDatabaseName("like_mode"));
    config.write_mode = mode;
    std::unique_ptr<LikeApp> app;
    ASSERT_TRUE(LikeApp::Create(config, &app).ok());
    for (int i = 0; i < 20; ++i) {
      SetLikeResult result;
      ASSERT_TRUE(app->core().store->SetLike(30, "m" + std::to_string(i), true, "", &result).ok());
      ASSERT_TRUE(result.changed);
    }
    ASSERT_TRUE(SharedServers::redis().RestartEmpty());  // before any writer ran
    ASSERT_EQ(Drain(*app), Status::Ok());
    const int64_t count = StoreTotal(*app, 30);
    EXPECT_EQ(count, mode == "redis-first" ? 0 : 20);
    ExpectAllLevels(*app, 30, count);
  }
}

}  // namespace
}  // namespace ferry::like::testing
