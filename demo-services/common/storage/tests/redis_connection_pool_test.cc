// RedisConnectionPool against a real redis-server: binary-safe arguments and replies,
// pipelines, no more than pool_size connections, concurrent callers batched on one connection
// each getting its own replies, a waiter served after the batch ahead of it, the asynchronous
// connection (order, its queue limit, a dead server), and a restarted or dead server.

#include <gtest/gtest.h>
#include <hiredis.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ferry/storage/redis_connection_pool.h"
#include "redis_server.h"
#include "redis_test_server.h"

namespace ferry::storage::testing {
namespace {

using namespace std::chrono_literals;

// Every byte value, NUL included.
std::string AllBytes() {
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes.push_back(static_cast<char>(i));
  return bytes;
}

class RedisConnectionPoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = SharedRedis();
    ASSERT_NE(server_, nullptr);
  }

  testsupport::RedisServer* server_ = nullptr;
};

TEST_F(RedisConnectionPoolTest, ArgumentsAndRepliesAreBinarySafe) {
  RedisConnectionPool pool(OptionsFor(*server_));
  const std::string key = std::string("key\0with nul", 12);
  const std::string value = AllBytes();
  ASSERT_EQ(RunText(pool, {"SET", key, value}), "OK");
  RedisReplyPtr reply;
  ASSERT_TRUE(pool.Run({"GET", key}, &reply).ok());
  ASSERT_EQ(reply->type, REDIS_REPLY_STRING);
  EXPECT_EQ(ReplyText(reply.get()), value);
  EXPECT_EQ(RunText(pool, {"STRLEN", key}), "256");
}

TEST_F(RedisConnectionPoolTest, APipelineAnswersEachCommandInOrder) {
  RedisConnectionPool pool(OptionsFor(*server_));
  std::vector<RedisReplyPtr> replies;
  Status s = pool.RunPipeline({{"SET", "n", "1"}, {"INCR", "n"}, {"NO-SUCH-COMMAND"}, {"GET", "n"}},
                              &replies);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(replies.size(), 4u);
  EXPECT_EQ(ReplyAsText(replies[0]), "OK");
  EXPECT_EQ(ReplyAsText(replies[1]), "2");
  // An error reply is an answer, not a failure of the pool.
  EXPECT_TRUE(IsErrorReply(replies[2].get(), "ERR"));
  EXPECT_EQ(ReplyAsText(replies[3]), "2");
  EXPECT_EQ(RunText(pool, {"GET", "n"}), "2");
}

TEST_F(RedisConnectionPoolTest, ManyThreadsShareAtMostPoolSizeConnections) {
  constexpr int kPoolSize = 2;
  RedisConnectionPool pool(OptionsFor(*server_, kPoolSize));
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 100; ++i) EXPECT_EQ(RunText(pool, {"PING"}), "PONG");
    });
  }
  for (auto& thread : threads) thread.join();
  // The pool's own connections are all the clients the server has (CLIENT LIST runs on one).
  const std::string clients = RunText(pool, {"CLIENT", "LIST"});
  int lines = 0;
  for (char c : clients) lines += c == '\n';
  EXPECT_GE(lines, 1);
  EXPECT_LE(lines, kPoolSize);
}

TEST_F(RedisConnectionPoolTest, ACallerWaitsForTheOnlyConnectionRatherThanOpenAnother) {
  RedisConnectionPool pool(OptionsFor(*server_, 1));
  RedisConnectionPool observer(OptionsFor(*server_, 1));
  RedisReplyPtr popped;
  Status pop_status;
  std::thread blocked([&] { pop_status = pool.Run({"BLPOP", "queue", "4"}, &popped); });
  // The pool's one connection is taken once the server counts a blocked client.
  const auto deadline = std::chrono::steady_clock::now() + 4s;
  while (InfoField(observer, "clients", "blocked_clients") != "1" &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  ASSERT_EQ(InfoField(observer, "clients", "blocked_clients"), "1");
  std::string waited;
  std::thread waiter([&] { waited = RunText(pool, {"ECHO", "after"}); });
  ASSERT_EQ(RunText(observer, {"RPUSH", "queue", "item"}), "1");
  blocked.join();
  waiter.join();
  ASSERT_TRUE(pop_status.ok()) << pop_status;
  ASSERT_EQ(popped->type, REDIS_REPLY_ARRAY);
  ASSERT_EQ(popped->elements, 2u);
  EXPECT_EQ(ReplyText(popped->element[1]), "item");
  EXPECT_EQ(waited, "after");
  // The pool's connection and the observer's.
  EXPECT_EQ(InfoField(observer, "clients", "connected_clients"), "2");
}

// Batched or not, every caller reads the replies to its own commands.
TEST_F(RedisConnectionPoolTest, CallersBatchedOnOneConnectionEachGetTheirOwnReplies) {
  RedisConnectionPool pool(OptionsFor(*server_, 1));
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        const std::string a = "t" + std::to_string(t) + "-" + std::to_string(i);
        std::vector<RedisReplyPtr> replies;
        Status s = pool.RunPipeline({{"ECHO", a}, {"ECHO", a + "b"}}, &replies);
        if (!s.ok() || replies.size() != 2 || ReplyAsText(replies[0]) != a ||
            ReplyAsText(replies[1]) != a + "b") {
          ++wrong;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST_F(RedisConnectionPoolTest, AsyncCallsAreAnsweredInOrderWithTheirOwnReplies) {
  RedisConnectionPool pool(OptionsFor(*server_, 1));
  constexpr int kCalls = 2000;
  std::mutex mu;
  std::vector<std::string> answers;
  std::promise<void> all;
  for (int i = 0; i < kCalls; ++i) {
    ASSERT_TRUE(pool.RunAsync(
        {{"ECHO", std::to_string(i)}}, [&](const Status& s, std::vector<RedisReplyPtr> replies) {
          std::lock_guard lock(mu);
          answers.push_back(s.ok() && replies.size() == 1 ? ReplyAsText(replies[0]) : s.ToString());
          if (answers.size() == kCalls) all.set_value();
        }));
  }
  ASSERT_EQ(all.get_future().wait_for(10s), std::future_status::ready);
  for (int i = 0; i < kCalls; ++i) EXPECT_EQ(answers[i], std::to_string(i));
}

// Calls queued behind a blocked one count against the limit; past it RunAsync refuses, so the
// caller runs its commands synchronously instead of queueing without bound.
TEST_F(RedisConnectionPoolTest, AsyncCallsPastTheQueueLimitAreRefused) {
  RedisOptions options = OptionsFor(*server_, 1, 5000);
  options.async_queue_limit = 1;
  RedisConnectionPool pool(options);
  RedisConnectionPool observer(OptionsFor(*server_, 1));
  std::promise<std::string> popped;
  std::promise<std::string> echoed;
  ASSERT_TRUE(pool.RunAsync({{"BLPOP", "async-queue", "4"}},
                            [&](const Status& s, std::vector<RedisReplyPtr> replies) {
                              popped.set_value(s.ok() && replies[0]->type == REDIS_REPLY_ARRAY
                                                   ? std::string(ReplyText(replies[0]->element[1]))
                                                   : s.ToString());
                            }));
  // The asynchronous connection is blocked once the server counts a blocked client.
  const auto deadline = std::chrono::steady_clock::now() + 4s;
  while (InfoField(observer, "clients", "blocked_clients") != "1" &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  ASSERT_EQ(InfoField(observer, "clients", "blocked_clients"), "1");
  ASSERT_TRUE(
      pool.RunAsync({{"ECHO", "queued"}}, [&](const Status& s, std::vector<RedisReplyPtr> replies) {
        echoed.set_value(s.ok() ? ReplyAsText(replies[0]) : s.ToString());
      }));
  bool called = false;
  EXPECT_FALSE(pool.RunAsync({{"ECHO", "refused"}},
                             [&](const Status&, std::vector<RedisReplyPtr>) { called = true; }));
  ASSERT_EQ(RunText(observer, {"RPUSH", "async-queue", "item"}), "1");
  EXPECT_EQ(popped.get_future().get(), "item");
  EXPECT_EQ(echoed.get_future().get(), "queued");
  EXPECT_FALSE(called);
}

// Its own server: the shared one stays up for the other tests.
TEST(RedisConnectionPoolRestartTest, AnAsyncCallToADeadServerIsUnavailable) {
  testsupport::RedisServer server;
  ASSERT_TRUE(server.Start());
  RedisConnectionPool pool(OptionsFor(server, 1, 500));
  std::promise<Status> first;
  ASSERT_TRUE(pool.RunAsync(
      {{"PING"}}, [&](const Status& s, std::vector<RedisReplyPtr>) { first.set_value(s); }));
  ASSERT_TRUE(first.get_future().get().ok());
  server.Kill();
  std::promise<Status> after;
  ASSERT_TRUE(pool.RunAsync(
      {{"PING"}}, [&](const Status& s, std::vector<RedisReplyPtr>) { after.set_value(s); }));
  const Status s = after.get_future().get();
  EXPECT_EQ(s.code(), StatusCode::UNAVAILABLE) << s;
  EXPECT_NE(s.message().find(server.address()), std::string::npos) << s;
}

// Its own server: the shared one stays up for the other tests.
TEST(RedisConnectionPoolRestartTest, ARestartedServerCostsNoFailedCall) {
  testsupport::RedisServer server;
  ASSERT_TRUE(server.Start());
  RedisConnectionPool pool(OptionsFor(server, 2));
  ASSERT_EQ(RunText(pool, {"SET", "k", "v"}), "OK");
  ASSERT_TRUE(server.RestartEmpty());
  // The idle connection died with the old server and is noticed before use.
  EXPECT_EQ(RunText(pool, {"PING"}), "PONG");
  EXPECT_EQ(RunText(pool, {"GET", "k"}), "(nil)");
}

TEST(RedisConnectionPoolRestartTest, ADeadServerIsUnavailableUntilItIsBack) {
  testsupport::RedisServer server;
  ASSERT_TRUE(server.Start());
  RedisConnectionPool pool(OptionsFor(server, 2, 500));
  ASSERT_EQ(RunText(pool, {"PING"}), "PONG");
  server.Kill();
  RedisReplyPtr reply;
  Status s = pool.Run({"PING"}, &reply);
  EXPECT_EQ(s.code(), StatusCode::UNAVAILABLE) << s;
  EXPECT_NE(s.message().find(server.address()), std::string::npos) << s;
  ASSERT_TRUE(server.Start());
  EXPECT_EQ(RunText(pool, {"PING"}), "PONG");
}

}  // namespace
}  // namespace ferry::storage::testing

namespace ferry::storage::testing {
namespace {

// A connection check runs on each new connection before the callers' commands, through that
// connection; when it fails, the commands are not sent and the connection is not kept.
TEST_F(RedisConnectionPoolTest, AConnectionCheckRunsBeforeTheCallersCommandsAndCanStopThem) {
  RedisConnectionPool pool(OptionsFor(*server_, /*pool_size=*/1));
  int checks = 0;
  bool refuse = true;
  pool.SetConnectionCheck([&](const RedisConnectionPool::DirectPipeline& run) {
    ++checks;
    std::vector<RedisReplyPtr> replies;
    if (Status s = run({{"SET", "checked", std::to_string(checks)}}, &replies); !s.ok()) return s;
    if (refuse) return Status(StatusCode::UNAVAILABLE, "not the server the data expects");
    return Status::Ok();
  });
  RedisReplyPtr reply;
  Status s = pool.Run({"SET", "sent", "1"}, &reply);
  EXPECT_EQ(s.code(), StatusCode::UNAVAILABLE) << s;
  EXPECT_EQ(checks, 1);
  refuse = false;
  EXPECT_EQ(RunText(pool, {"GET", "sent"}), "(nil)");  // the refused command never went out
  EXPECT_EQ(checks, 2);                                // the refused connection was closed
  EXPECT_EQ(RunText(pool, {"GET", "checked"}), "2");
  EXPECT_EQ(checks, 2);  // an open connection is not checked again
}

}  // namespace
}  // namespace ferry::storage::testing
