// RedisSubscriber against a real redis-server: messages reach the owner's thread, a restarted
// server is subscribed to again (and the owner told so), a dead server is retried with backoff
// and a stop ends Run promptly in every state.

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ferry/storage/redis_connection_pool.h"
#include "ferry/storage/redis_subscriber.h"
#include "redis_server.h"
#include "redis_test_server.h"

namespace ferry::storage::testing {
namespace {

using namespace std::chrono_literals;

// What the subscriber's callbacks saw, for the test thread to wait on.
class Inbox {
 public:
  void Add(const std::string& channel, const std::string& message) {
    std::lock_guard lock(mu_);
    messages_.push_back(channel + "=" + message);
    threads_.push_back(std::this_thread::get_id());
    cv_.notify_all();
  }
  void Subscribed() {
    std::lock_guard lock(mu_);
    ++subscribed_;
    cv_.notify_all();
  }
  bool WaitSubscribed(int times) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, 20s, [&] { return subscribed_ >= times; });
  }
  bool WaitMessages(size_t count) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, 20s, [&] { return messages_.size() >= count; });
  }
  std::vector<std::string> messages() {
    std::lock_guard lock(mu_);
    return messages_;
  }
  std::vector<std::thread::id> threads() {
    std::lock_guard lock(mu_);
    return threads_;
  }
  int subscribed() {
    std::lock_guard lock(mu_);
    return subscribed_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> messages_;
  std::vector<std::thread::id> threads_;
  int subscribed_ = 0;
};

RedisSubscriberOptions SubscriberFor(const testsupport::RedisServer& server) {
  return {.host = server.host(),
          .port = server.port(),
          .channels = {"news", "weather"},
          .liveness_ms = 600,
          .backoff_first_ms = 10,
          .backoff_max_ms = 200};
}

TEST(RedisSubscriberTest, MessagesOfEveryChannelReachTheOwnersThread) {
  testsupport::RedisServer* server = SharedRedis();
  ASSERT_NE(server, nullptr);
  Inbox inbox;
  RedisSubscriber subscriber(
      SubscriberFor(*server), [&](const std::string& c, const std::string& m) { inbox.Add(c, m); },
      [&] { inbox.Subscribed(); });
  std::thread::id owner;
  std::jthread thread([&](std::stop_token stop) {
    owner = std::this_thread::get_id();
    subscriber.Run(stop);
  });
  ASSERT_TRUE(inbox.WaitSubscribed(1));
  RedisConnectionPool pool(OptionsFor(*server));
  EXPECT_EQ(RunText(pool, {"PUBLISH", "news", "one"}), "1");
  EXPECT_EQ(RunText(pool, {"PUBLISH", "other", "ignored"}), "0");
  EXPECT_EQ(RunText(pool, {"PUBLISH", "weather", std::string("a\0b", 3)}), "1");
  ASSERT_TRUE(inbox.WaitMessages(2));
  EXPECT_EQ(inbox.messages(),
            (std::vector<std::string>{"news=one", "weather=" + std::string("a\0b", 3)}));
  for (std::thread::id id : inbox.threads()) EXPECT_EQ(id, owner);
  // Longer than the liveness bound with nothing published: its PINGs keep the one connection.
  std::this_thread::sleep_for(1500ms);
  EXPECT_EQ(subscriber.subscriptions(), 1);
  EXPECT_EQ(inbox.subscribed(), 1);
}

TEST(RedisSubscriberTest, ARestartedServerIsSubscribedToAgain) {
  testsupport::RedisServer server;
  ASSERT_TRUE(server.Start());
  Inbox inbox;
  RedisSubscriber subscriber(
      SubscriberFor(server), [&](const std::string& c, const std::string& m) { inbox.Add(c, m); },
      [&] { inbox.Subscribed(); });
  std::jthread thread([&](std::stop_token stop) { subscriber.Run(stop); });
  ASSERT_TRUE(inbox.WaitSubscribed(1));
  ASSERT_TRUE(server.RestartEmpty());
  ASSERT_TRUE(inbox.WaitSubscribed(2));
  RedisConnectionPool pool(OptionsFor(server));
  EXPECT_EQ(RunText(pool, {"PUBLISH", "news", "after"}), "1");
  ASSERT_TRUE(inbox.WaitMessages(1));
  EXPECT_EQ(inbox.messages(), std::vector<std::string>{"news=after"});
  EXPECT_EQ(subscriber.subscriptions(), 2);
}

TEST(RedisSubscriberTest, ADeadServerIsRetriedAndAStopEndsRunPromptly) {
  testsupport::RedisServer server;
  ASSERT_TRUE(server.Start());
  Inbox inbox;
  RedisSubscriber subscriber(
      SubscriberFor(server), [&](const std::string& c, const std::string& m) { inbox.Add(c, m); },
      [&] { inbox.Subscribed(); });
  {
    std::jthread thread([&](std::stop_token stop) { subscriber.Run(stop); });
    ASSERT_TRUE(inbox.WaitSubscribed(1));
    server.Kill();
    // Each attempt while it is down fails and is reported; none subscribes.
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (subscriber.last_error().ok() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(10ms);
    }
    EXPECT_EQ(subscriber.last_error().code(), StatusCode::UNAVAILABLE);
    EXPECT_EQ(subscriber.subscriptions(), 1);
    const auto stopping = std::chrono::steady_clock::now();
    thread.request_stop();
    thread.join();
    EXPECT_LT(std::chrono::steady_clock::now() - stopping, 500ms);
  }
  // Stopped while subscribed (waiting on a healthy connection) ends as promptly.
  ASSERT_TRUE(server.Start());
  std::jthread thread([&](std::stop_token stop) { subscriber.Run(stop); });
  ASSERT_TRUE(inbox.WaitSubscribed(2));
  const auto stopping = std::chrono::steady_clock::now();
  thread.request_stop();
  thread.join();
  EXPECT_LT(std::chrono::steady_clock::now() - stopping, 500ms);
}

}  // namespace
}  // namespace ferry::storage::testing
