// RedisGeneration against real redis-servers: a generation per key, kept while the server is
// the same, new after a restart (with its data kept, or restored from an older copy), after a
// flush, and after a replica is promoted in place; made before any caller's command reaches
// the new server, and the same for every process checking one server.

#include <gtest/gtest.h>
#include <hiredis.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "ferry/storage/redis_generation.h"
#include "redis_server.h"
#include "redis_test_server.h"

namespace ferry::storage::testing {
namespace {

std::string Generation(RedisConnectionPool& pool, const std::string& key) {
  return RunText(pool, {"HGET", key, "gen"});
}

TEST(RedisGenerationTest, AKeyKeepsItsGenerationWhileTheServerIsTheSame) {
  testsupport::RedisServer* server = SharedRedis();
  ASSERT_NE(server, nullptr);
  RedisConnectionPool pool(OptionsFor(*server));
  RedisGeneration generation({"{a}:g", "{b}:g"});
  generation.Watch(&pool);
  ASSERT_EQ(RunText(pool, {"PING"}), "PONG");  // the first connection checks
  const std::string a = Generation(pool, "{a}:g");
  const std::string b = Generation(pool, "{b}:g");
  EXPECT_NE(a, "(nil)");
  EXPECT_NE(b, "(nil)");
  ASSERT_TRUE(generation.Check(pool).ok());
  EXPECT_EQ(Generation(pool, "{a}:g"), a);
  EXPECT_EQ(Generation(pool, "{b}:g"), b);
  EXPECT_EQ(generation.changes(), 0u);

  // Another process checking the same server adopts the generation, it does not make one.
  RedisConnectionPool other(OptionsFor(*server));
  RedisGeneration other_generation({"{a}:g"});
  other_generation.Watch(&other);
  ASSERT_EQ(RunText(other, {"PING"}), "PONG");
  EXPECT_EQ(Generation(other, "{a}:g"), a);
}

TEST(RedisGenerationTest, ARestartedServerGetsANewGenerationBeforeAnyCommandReachesIt) {
  testsupport::RedisServer server({.appendonly = true});
  ASSERT_TRUE(server.Start());
  RedisConnectionPool pool(OptionsFor(server, /*pool_size=*/1));
  RedisGeneration generation({"{a}:g"});
  std::vector<std::string> seen;
  generation.OnChange([&](const RedisServerIdentity& identity, int64_t g) {
    seen.push_back(identity.run_id + " " + std::to_string(g));
  });
  generation.Watch(&pool);
  ASSERT_EQ(RunText(pool, {"SET", "x", "1"}), "OK");
  const std::string before = Generation(pool, "{a}:g");

  ASSERT_TRUE(server.Restart());  // every key kept, the generation key included
  // The first command after the restart is a read of the key: the check has run before it.
  const std::string after = Generation(pool, "{a}:g");
  EXPECT_NE(after, "(nil)");
  EXPECT_NE(after, before);
  EXPECT_EQ(RunText(pool, {"GET", "x"}), "1");
  EXPECT_EQ(generation.changes(), 1u);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_TRUE(seen[0].ends_with(" " + after)) << seen[0];
}

TEST(RedisGenerationTest, AServerRestoredFromAnOlderCopyIsANewGeneration) {
  testsupport::RedisServer server({.appendonly = true});
  ASSERT_TRUE(server.Start());
  RedisConnectionPool pool(OptionsFor(server, 1));
  RedisGeneration generation({"{a}:g"});
  generation.Watch(&pool);
  ASSERT_EQ(RunText(pool, {"SET", "x", "old"}), "OK");
  const std::string old_generation = Generation(pool, "{a}:g");
  server.Stop();
  const std::filesystem::path copy = server.dir() / "copy";
  std::filesystem::copy(server.data_dir(), copy, std::filesystem::copy_options::recursive);
  ASSERT_TRUE(server.Start());
  ASSERT_EQ(RunText(pool, {"SET", "x", "new"}), "OK");
  const std::string newer_generation = Generation(pool, "{a}:g");
  server.Stop();
  std::filesystem::remove_all(server.data_dir());
  std::filesystem::copy(copy, server.data_dir(), std::filesystem::copy_options::recursive);
  ASSERT_TRUE(server.Start());

  // The copy still carries its generation key, made for a server that is gone.
  EXPECT_EQ(RunText(pool, {"GET", "x"}), "old");
  const std::string restored = Generation(pool, "{a}:g");
  EXPECT_NE(restored, old_generation);
  EXPECT_NE(restored, newer_generation);
}

TEST(RedisGenerationTest, AFlushedKeyGetsANewGenerationOnTheNextCheck) {
  testsupport::RedisServer* server = SharedRedis();
  ASSERT_NE(server, nullptr);
  RedisConnectionPool pool(OptionsFor(*server, /*pool_size=*/1));
  RedisGeneration generation({"{a}:g"});
  generation.Watch(&pool);
  const std::string before = Generation(pool, "{a}:g");
  ASSERT_EQ(RunText(pool, {"FLUSHALL"}), "OK");
  EXPECT_EQ(Generation(pool, "{a}:g"), "(nil)");  // the connections stay open
  ASSERT_TRUE(generation.Check(pool).ok());
  const std::string after = Generation(pool, "{a}:g");
  EXPECT_NE(after, "(nil)");
  EXPECT_NE(after, before);
  EXPECT_EQ(generation.changes(), 1u);
}

TEST(RedisGenerationTest, AReplicaPromotedInPlaceIsANewGeneration) {
  testsupport::RedisServer primary;
  testsupport::RedisServer replica;
  ASSERT_TRUE(primary.Start());
  ASSERT_TRUE(replica.Start());
  RedisConnectionPool to_primary(OptionsFor(primary, 1));
  RedisGeneration primary_generation({"{a}:g"});
  primary_generation.Watch(&to_primary);
  ASSERT_EQ(RunText(to_primary, {"SET", "x", "1"}), "OK");
  const std::string on_primary = Generation(to_primary, "{a}:g");

  RedisConnectionPool to_replica(OptionsFor(replica, 1));
  ASSERT_EQ(RunText(to_replica, {"REPLICAOF", "127.0.0.1", std::to_string(primary.port())}), "OK");
  // Polls what replication shows, at most 10 s.
  for (int i = 0; i < 1000 && Generation(to_replica, "{a}:g") != on_primary; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(Generation(to_replica, "{a}:g"), on_primary);  // replicated with the data
  ASSERT_EQ(RunText(to_replica, {"REPLICAOF", "NO", "ONE"}), "OK");

  // The promoted replica keeps its connections and its run id; its replication id is new.
  RedisGeneration generation({"{a}:g"});
  ASSERT_TRUE(generation.Check(to_replica).ok());
  EXPECT_NE(Generation(to_replica, "{a}:g"), on_primary);
}

}  // namespace
}  // namespace ferry::storage::testing
