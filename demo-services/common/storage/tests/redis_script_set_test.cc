// RedisScriptSet against a real redis-server: a script loads on first use or up front, SCRIPT
// FLUSH and a server restarted empty cost no failed call (NOSCRIPT reloads and repeats once),
// arguments and results are binary-safe, and error replies and broken scripts become statuses
// naming the script.

#include <gtest/gtest.h>

#include <hiredis.h>
#include <future>

#include <string>
#include <thread>
#include <vector>

#include "ferry/storage/redis_script_set.h"
#include "redis_server.h"
#include "redis_test_server.h"

namespace ferry::storage::testing {
namespace {

enum TestScript { kEcho, kIncrBy, kFail };

std::vector<RedisScript> TestScripts() {
  return {
      {.name = "echo", .source = "return ARGV[1]"},
      {.name = "incrby", .source = "return redis.call('INCRBY', KEYS[1], ARGV[1])"},
      {.name = "fail", .source = "return redis.error_reply('ERR test fail: ' .. ARGV[1])"},
  };
}

class RedisScriptSetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = SharedRedis();
    ASSERT_NE(server_, nullptr);
    pool_ = std::make_unique<RedisConnectionPool>(OptionsFor(*server_));
    scripts_ = std::make_unique<RedisScriptSet>(pool_.get(), TestScripts());
  }

  std::string Eval(size_t index, const std::vector<std::string>& keys,
                   const std::vector<std::string>& args) {
    RedisReplyPtr reply;
    Status s = scripts_->Eval(index, keys, args, &reply);
    if (!s.ok()) return "FAILED:" + s.ToString();
    return ReplyAsText(reply);
  }

  std::string CachedScripts() { return InfoField(*pool_, "memory", "number_of_cached_scripts"); }

  testsupport::RedisServer* server_ = nullptr;
  std::unique_ptr<RedisConnectionPool> pool_;
  std::unique_ptr<RedisScriptSet> scripts_;
};

TEST_F(RedisScriptSetTest, AScriptIsLoadedOnItsFirstCall) {
  EXPECT_EQ(CachedScripts(), "0");
  EXPECT_EQ(Eval(kEcho, {}, {"hello"}), "hello");
  EXPECT_EQ(CachedScripts(), "1");
}

TEST_F(RedisScriptSetTest, LoadAllLoadsEveryScript) {
  Status s = scripts_->LoadAll();
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(CachedScripts(), "3");
  EXPECT_EQ(Eval(kIncrBy, {"n"}, {"5"}), "5");
  EXPECT_EQ(CachedScripts(), "3");
}

TEST_F(RedisScriptSetTest, AfterScriptFlushACallReloadsItsScriptAndRunsItOnce) {
  ASSERT_TRUE(scripts_->LoadAll().ok());
  ASSERT_EQ(Eval(kIncrBy, {"n"}, {"1"}), "1");
  ASSERT_EQ(RunText(*pool_, {"SCRIPT", "FLUSH"}), "OK");
  ASSERT_EQ(CachedScripts(), "0");
  EXPECT_EQ(Eval(kIncrBy, {"n"}, {"1"}), "2");
  EXPECT_EQ(CachedScripts(), "1");
  EXPECT_EQ(RunText(*pool_, {"GET", "n"}), "2");
}

// EvalAsync answers, fails as Eval would, reports a script Redis lost as not run (so the
// caller may Eval it), and refuses to start a script never loaded.
TEST_F(RedisScriptSetTest, EvalAsyncAnswersFailsOrReportsALostScriptAsNotRun) {
  using Outcome = RedisScriptSet::AsyncOutcome;
  auto eval_async = [&](size_t index, const std::vector<std::string>& args) {
    std::promise<std::pair<Outcome, std::string>> result;
    const bool started = scripts_->EvalAsync(
        index, {"async-n"}, args, [&](Outcome outcome, const Status& s, RedisReplyPtr reply) {
          result.set_value(
              {outcome, outcome == Outcome::kAnswered ? ReplyAsText(reply) : s.ToString()});
        });
    EXPECT_TRUE(started);
    return started ? result.get_future().get() : std::pair{Outcome::kFailed, std::string()};
  };
  EXPECT_FALSE(
      scripts_->EvalAsync(kEcho, {}, {"x"}, [](Outcome, const Status&, RedisReplyPtr) { FAIL(); }));
  ASSERT_TRUE(scripts_->LoadAll().ok());
  EXPECT_EQ(eval_async(kEcho, {"hello"}), std::pair(Outcome::kAnswered, std::string("hello")));
  const auto failed = eval_async(kFail, {"boom"});
  EXPECT_EQ(failed.first, Outcome::kFailed);
  EXPECT_NE(failed.second.find("fail"), std::string::npos) << failed.second;
  ASSERT_EQ(RunText(*pool_, {"SCRIPT", "FLUSH"}), "OK");
  EXPECT_EQ(eval_async(kIncrBy, {"1"}).first, Outcome::kNotRun);
  EXPECT_EQ(RunText(*pool_, {"GET", "async-n"}), "(nil)");  // it did not run
  EXPECT_EQ(Eval(kIncrBy, {"async-n"}, {"1"}), "1");        // Eval loads it again
}

TEST_F(RedisScriptSetTest, ConcurrentCallersAfterAFlushEachRunOnce) {
  ASSERT_TRUE(scripts_->LoadAll().ok());
  ASSERT_EQ(RunText(*pool_, {"SCRIPT", "FLUSH"}), "OK");
  constexpr int kThreads = 8;
  constexpr int kCalls = 50;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kCalls; ++i) {
        RedisReplyPtr reply;
        Status s = scripts_->Eval(kIncrBy, {"n"}, {"1"}, &reply);
        EXPECT_TRUE(s.ok()) << s;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(RunText(*pool_, {"GET", "n"}), std::to_string(kThreads * kCalls));
}

TEST_F(RedisScriptSetTest, ArgumentsAndResultsAreBinarySafe) {
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes.push_back(static_cast<char>(i));
  RedisReplyPtr reply;
  Status s = scripts_->Eval(kEcho, {}, {bytes}, &reply);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(reply->type, REDIS_REPLY_STRING);
  EXPECT_EQ(ReplyText(reply.get()), bytes);
}

TEST_F(RedisScriptSetTest, AnErrorReplyIsAStatusNamingTheScript) {
  RedisReplyPtr reply;
  Status s = scripts_->Eval(kFail, {}, {"boom"}, &reply);
  EXPECT_EQ(s.code(), StatusCode::INTERNAL) << s;
  EXPECT_NE(s.message().find("fail"), std::string::npos) << s;
  EXPECT_NE(s.message().find("ERR test fail: boom"), std::string::npos) << s;
  // Redis refusing for now is UNAVAILABLE: the same call may succeed later.
  s = RedisScriptSet(pool_.get(),
                     {{.name = "busy", .source = "return redis.error_reply('BUSY x')"}})
          .Eval(0, {}, {}, &reply);
  EXPECT_EQ(s.code(), StatusCode::UNAVAILABLE) << s;
}

TEST_F(RedisScriptSetTest, AScriptThatDoesNotCompileFailsToLoadNamingIt) {
  RedisScriptSet broken(pool_.get(), {{.name = "echo", .source = "return ARGV[1]"},
                                      {.name = "broken", .source = "return +"}});
  Status s = broken.LoadAll();
  EXPECT_EQ(s.code(), StatusCode::INTERNAL) << s;
  EXPECT_NE(s.message().find("broken"), std::string::npos) << s;
  RedisReplyPtr reply;
  s = broken.Eval(1, {}, {}, &reply);
  EXPECT_EQ(s.code(), StatusCode::INTERNAL) << s;
  EXPECT_NE(s.message().find("loading the broken script"), std::string::npos) << s;
  // The other script is unaffected.
  ASSERT_TRUE(broken.Eval(0, {}, {"still"}, &reply).ok());
  EXPECT_EQ(ReplyText(reply.get()), "still");
}

TEST_F(RedisScriptSetTest, AnIndexOutOfRangeIsInvalidArgument) {
  RedisReplyPtr reply;
  Status s = scripts_->Eval(TestScripts().size(), {}, {}, &reply);
  EXPECT_EQ(s.code(), StatusCode::INVALID_ARGUMENT) << s;
}

// Its own server: restarting the shared one would disturb the other tests.
TEST(RedisScriptSetRestartTest, AServerRestartedEmptyCostsNoFailedCall) {
  testsupport::RedisServer server;
  ASSERT_TRUE(server.Start());
  RedisConnectionPool pool(OptionsFor(server, 2));
  RedisScriptSet scripts(&pool, TestScripts());
  ASSERT_TRUE(scripts.LoadAll().ok());
  ASSERT_TRUE(server.RestartEmpty());
  RedisReplyPtr reply;
  Status s = scripts.Eval(kIncrBy, {"n"}, {"3"}, &reply);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(ReplyAsText(reply), "3");
}

TEST(RedisScriptSetRestartTest, LoadAllOnADeadServerIsUnavailableNamingTheAddress) {
  testsupport::RedisServer server;
  ASSERT_TRUE(server.Start());
  RedisConnectionPool pool(OptionsFor(server, 1, 500));
  RedisScriptSet scripts(&pool, TestScripts());
  server.Kill();
  Status s = scripts.LoadAll();
  EXPECT_EQ(s.code(), StatusCode::UNAVAILABLE) << s;
  EXPECT_NE(s.message().find(server.address()), std::string::npos) << s;
}

}  // namespace
}  // namespace ferry::storage::testing
