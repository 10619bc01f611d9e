// How a channel's calls end when the server is slow, gone, silent or restarted, and when the
// channel itself goes away.
#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "channel_test_util.h"
#include "client/direct_channel.h"
#include "fake_server.h"
#include "log_capture.h"

namespace ferry::testing {
namespace {

using std::chrono::milliseconds;

// Outcomes of calls made without waiting; each call's status slot is written once.
class CallBatch {
 public:
  explicit CallBatch(size_t n) : calls_(n) {}

  void Start(Channel& channel, const CallOptions& options = {}) {
    for (size_t i = 0; i < calls_.size(); ++i) {
      calls_[i].request.set_value("call-" + std::to_string(i));
      channel.CallMethod(kEchoMethod, calls_[i].request, &calls_[i].response, options,
                         [this, i](const Status& status) {
                           calls_[i].status = status;
                           calls_[i].completions.fetch_add(1);
                           completed_.fetch_add(1);
                         });
    }
  }
  bool WaitAll(milliseconds limit) {
    return WaitUntil([this] { return completed_.load() == calls_.size(); }, limit);
  }
  const Status& status(size_t i) const { return calls_[i].status; }
  int completions(size_t i) const { return calls_[i].completions.load(); }
  size_t size() const { return calls_.size(); }

 private:
  struct Call {
    google::protobuf::StringValue request;
    google::protobuf::StringValue response;
    Status status;
    std::atomic<int> completions{0};
  };
  std::vector<Call> calls_;
  std::atomic<size_t> completed_{0};
};

bool Contains(const Status& status, const std::string& text) {
  return status.message().find(text) != std::string::npos;
}

// The reconnect delays logged for the connections to `target` that were lost, in order.
std::vector<int> ReconnectDelays(const testsupport::LogCapture& log, const std::string& target) {
  constexpr std::string_view kDelay = "reconnecting in ";
  std::vector<int> delays;
  for (const std::string& line : log.Messages("connection to " + target + " lost")) {
    const size_t at = line.rfind(kDelay);
    if (at != std::string::npos) delays.push_back(std::stoi(line.substr(at + kDelay.size())));
  }
  return delays;
}

TEST(ConnectionFailureTest, ATimedOutCallGetsDeadlineExceededAndItsLateResponseIsDropped) {
  FakeServer server(FakeServer::Mode::kHold);
  auto channel = MakeChannel(TestOptions(server.target()));
  CallBatch batch(1);
  CallOptions options;
  options.timeout = milliseconds(50);
  batch.Start(*channel, options);
  ASSERT_TRUE(batch.WaitAll(std::chrono::seconds(10)));
  EXPECT_EQ(batch.status(0), Status(StatusCode::DEADLINE_EXCEEDED, "call timed out after 50 ms"));

  // The server is told to skip it...
  ASSERT_TRUE(WaitUntil([&] { return server.cancelled_ids().size() == 1; }));
  EXPECT_EQ(channel->stats().calls_in_flight, 0u);
  // ...and when its answer comes anyway, it is counted and dropped, never delivered.
  server.ReleaseHeld();
  ASSERT_TRUE(WaitUntil([&] { return channel->stats().late_responses == 1; }));
  EXPECT_EQ(batch.completions(0), 1);

  CallBatch next(1);
  next.Start(*channel);
  ASSERT_TRUE(WaitUntil([&] { return server.requests_received() == 2; }));
  server.ReleaseHeld();
  ASSERT_TRUE(next.WaitAll(std::chrono::seconds(10)));
  EXPECT_TRUE(next.status(0).ok()) << next.status(0);
}

TEST(ConnectionFailureTest, CallsWithShorterTimeoutsExpireFirst) {
  FakeServer server(FakeServer::Mode::kHold);
  auto channel = MakeChannel(TestOptions(server.target()));
  CallBatch slow(1);
  CallBatch fast(1);
  CallOptions slow_options;
  slow_options.timeout = std::chrono::seconds(20);
  CallOptions fast_options;
  fast_options.timeout = milliseconds(30);
  slow.Start(*channel, slow_options);
  fast.Start(*channel, fast_options);
  ASSERT_TRUE(fast.WaitAll(std::chrono::seconds(10)));
  EXPECT_EQ(fast.status(0).code(), StatusCode::DEADLINE_EXCEEDED);
  EXPECT_EQ(slow.completions(0), 0);
  server.ReleaseHeld();
  ASSERT_TRUE(slow.WaitAll(std::chrono::seconds(10)));
  EXPECT_TRUE(slow.status(0).ok()) << slow.status(0);
}

TEST(ConnectionFailureTest, ADroppedConnectionFailsEveryPendingCallPromptly) {
  FakeServer server(FakeServer::Mode::kHold);
  auto channel = MakeChannel(TestOptions(server.target()));
  CallBatch batch(20);
  CallOptions options;
  options.timeout = std::chrono::seconds(60);
  batch.Start(*channel, options);
  ASSERT_TRUE(WaitUntil([&] { return server.requests_received() == batch.size(); }));

  server.CloseConnections();
  // Far sooner than the calls' own timeout.
  ASSERT_TRUE(batch.WaitAll(std::chrono::seconds(10)));
  for (size_t i = 0; i < batch.size(); ++i) {
    EXPECT_EQ(batch.status(i).code(), StatusCode::UNAVAILABLE) << batch.status(i);
    EXPECT_TRUE(Contains(batch.status(i), "connection to " + server.target() + " lost"))
        << batch.status(i);
    EXPECT_EQ(batch.completions(i), 1);
  }
  EXPECT_EQ(channel->stats().calls_in_flight, 0u);
}

TEST(ConnectionFailureTest, ReconnectsToAServerRestartedOnTheSamePort) {
  auto server = std::make_unique<FakeServer>(FakeServer::Mode::kEcho);
  const uint16_t port = server->port();
  auto channel = MakeChannel(TestOptions(server->target()));
  ASSERT_TRUE(Echo(*channel, "before").status.ok());

  server.reset();
  // The drop is noticed; calls fail with UNAVAILABLE until the server is back.
  ASSERT_TRUE(
      WaitUntil([&] { return Echo(*channel, "down").status.code() == StatusCode::UNAVAILABLE; }));
  server = std::make_unique<FakeServer>(FakeServer::Mode::kEcho, port);

  EchoResult result;
  ASSERT_TRUE(WaitUntil([&] {
    result = Echo(*channel, "after");
    return result.status.ok();
  })) << result.status;
  EXPECT_EQ(result.value, "echo:after");
  EXPECT_GE(channel->stats().reconnects, 1u);
}

// A peer that accepts and closes at once never said a word: each cycle is one more failure and
// the backoff goes on growing, instead of starting over at every connect and redialling it some
// 50 times a second.
TEST(ConnectionFailureTest, APeerThatAcceptsAndClosesIsRedialledEverLessOften) {
  testsupport::LogCapture log;
  FakeServer server(FakeServer::Mode::kClose);
  ClientOptions options = TestOptions(server.target());
  options.reconnect_initial = milliseconds(10);
  options.reconnect_max = std::chrono::seconds(10);
  auto channel = MakeChannel(options);
  EXPECT_EQ(Echo(*channel, "x").status.code(), StatusCode::UNAVAILABLE);
  // The connection redials by itself; six cycles of accept and close.
  ASSERT_TRUE(WaitUntil([&] { return ReconnectDelays(log, server.target()).size() >= 6; }));
  const std::vector<int> delays = ReconnectDelays(log, server.target());
  // Doubling, each +-20%: every delay longer than the one before, the sixth 10 ms x 2^5 x 0.8
  // at least.
  for (size_t i = 1; i < 6; ++i) EXPECT_GT(delays[i], delays[i - 1]) << "delay " << i;
  EXPECT_GE(delays[5], 256);
  EXPECT_GE(server.connections_accepted(), 6u);
}

// Once the peer has answered on a connection, losing it is a new failure: the backoff starts
// over from the initial delay.
TEST(ConnectionFailureTest, TheBackoffStartsOverOnceThePeerHasAnswered) {
  testsupport::LogCapture log;
  FakeServer server(FakeServer::Mode::kEcho);
  ClientOptions options = TestOptions(server.target());
  options.reconnect_initial = milliseconds(100);
  options.reconnect_max = std::chrono::seconds(10);
  auto channel = MakeChannel(options);
  for (size_t lost = 1; lost <= 2; ++lost) {
    EchoResult result;
    ASSERT_TRUE(WaitUntil([&] {
      result = Echo(*channel, "x");
      return result.status.ok();
    })) << result.status;
    server.CloseConnections();
    ASSERT_TRUE(WaitUntil([&] { return ReconnectDelays(log, server.target()).size() >= lost; }));
  }
  // Without starting over, the second would be 160 ms at least.
  for (const int delay : ReconnectDelays(log, server.target())) EXPECT_LE(delay, 120);
}

TEST(ConnectionFailureTest, ARefusedConnectFailsAndLaterCallsFailFastDuringBackoff) {
  uint16_t port = 0;
  {
    // A port that was just free: nothing listens there.
    boost::asio::io_context io;
    boost::asio::ip::tcp::acceptor probe(
        io, boost::asio::ip::tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0));
    port = probe.local_endpoint().port();
  }
  ClientOptions options = TestOptions("127.0.0.1:" + std::to_string(port));
  options.reconnect_initial = std::chrono::seconds(30);
  options.reconnect_max = std::chrono::seconds(30);
  auto channel = MakeChannel(options);

  const EchoResult first = Echo(*channel, "x");
  EXPECT_EQ(first.status.code(), StatusCode::UNAVAILABLE);
  EXPECT_TRUE(Contains(first.status, "cannot connect to 127.0.0.1:" + std::to_string(port)))
      << first.status;
  const EchoResult second = Echo(*channel, "y");
  EXPECT_EQ(second.status.code(), StatusCode::UNAVAILABLE);
  EXPECT_TRUE(Contains(second.status, "next attempt in")) << second.status;
}

TEST(ConnectionFailureTest, ASilentServerIsDeclaredDeadByTheHeartbeatTimeout) {
  FakeServer server(FakeServer::Mode::kSilent);
  ClientOptions options = TestOptions(server.target());
  options.heartbeat_interval = milliseconds(20);
  options.heartbeat_timeout = milliseconds(100);
  auto channel = MakeChannel(options);
  CallBatch batch(1);
  CallOptions call_options;
  call_options.timeout = std::chrono::seconds(60);
  batch.Start(*channel, call_options);

  ASSERT_TRUE(batch.WaitAll(std::chrono::seconds(10)));
  EXPECT_EQ(batch.status(0).code(), StatusCode::UNAVAILABLE) << batch.status(0);
  EXPECT_TRUE(Contains(batch.status(0), "heartbeat timeout")) << batch.status(0);
}

TEST(ConnectionFailureTest, HeartbeatsKeepAnIdleConnectionOpen) {
  FakeServer server(FakeServer::Mode::kEcho);
  ClientOptions options = TestOptions(server.target());
  options.heartbeat_interval = milliseconds(10);
  options.heartbeat_timeout = milliseconds(200);
  auto channel = MakeChannel(options);
  ASSERT_TRUE(Echo(*channel, "first").status.ok());

  // Idle for several heartbeat timeouts; the answered heartbeats keep the link up.
  ASSERT_TRUE(WaitUntil([&] { return server.heartbeats_received() >= 40; }));
  EXPECT_TRUE(Echo(*channel, "second").status.ok());
  EXPECT_EQ(server.connections_accepted(), 1u);
  EXPECT_EQ(channel->stats().reconnects, 0u);
}

TEST(ConnectionFailureTest, DestroyingTheChannelCancelsPendingCalls) {
  FakeServer server(FakeServer::Mode::kHold);
  auto channel = MakeChannel(TestOptions(server.target()));
  CallBatch batch(5);
  batch.Start(*channel);
  ASSERT_TRUE(WaitUntil([&] { return server.requests_received() == batch.size(); }));

  channel.reset();
  ASSERT_TRUE(batch.WaitAll(std::chrono::seconds(10)));
  for (size_t i = 0; i < batch.size(); ++i) {
    EXPECT_EQ(batch.status(i).code(), StatusCode::CANCELLED) << batch.status(i);
  }
}

// A callback holding the last reference to its channel may drop it: the channel is then
// destroyed on its own IO thread, which must neither deadlock nor crash.
TEST(ConnectionFailureTest, ACallbackMayDestroyTheLastReferenceToItsChannel) {
  FakeServer server(FakeServer::Mode::kHold);
  std::shared_ptr<Channel> holder = MakeChannel(TestOptions(server.target()));
  Channel* channel = holder.get();

  google::protobuf::StringValue request;
  request.set_value("last");
  google::protobuf::StringValue response;
  google::protobuf::StringValue other_response;
  std::promise<Status> first_done;
  std::promise<Status> other_done;
  channel->CallMethod(kEchoMethod, request, &response, {}, [&](const Status& status) {
    holder.reset();
    first_done.set_value(status);
  });
  channel->CallMethod(kEchoMethod, request, &other_response, {},
                      [&](const Status& status) { other_done.set_value(status); });
  ASSERT_TRUE(WaitUntil([&] { return server.requests_received() == 2; }));
  server.ReleaseHeld();

  auto first = first_done.get_future();
  auto other = other_done.get_future();
  ASSERT_EQ(first.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  ASSERT_EQ(other.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_TRUE(first.get().ok());
  // The second answer may have been in the same read: delivered, or cancelled by the shutdown.
  const Status other_status = other.get();
  EXPECT_TRUE(other_status.ok() || other_status.code() == StatusCode::CANCELLED) << other_status;
}

TEST(ConnectionFailureTest, APeerThatStopsReadingFailsCallsOnceTheWriteQueueIsFull) {
  FakeServer server(FakeServer::Mode::kSilent);
  ClientOptions options = TestOptions(server.target());
  options.max_outbound_bytes = 1 << 20;
  auto channel = MakeChannel(options);
  google::protobuf::StringValue request;
  request.set_value(std::string(64 << 10, 'x'));
  auto response = std::make_shared<google::protobuf::StringValue>();
  // The kernel's socket buffers take some megabytes first; after that the queue fills. Bounded:
  // 2,000 calls of 64 KiB would be 128 MiB, far past any loopback buffer.
  std::atomic<int> exhausted{0};
  Status first_exhausted;
  std::mutex mu;
  for (int i = 0; i < 2000 && exhausted.load() == 0; ++i) {
    channel->CallMethod(kEchoMethod, request, response.get(), {}, [&](const Status& status) {
      if (status.message().find("write queue") == std::string::npos) return;
      std::lock_guard lock(mu);
      if (exhausted.fetch_add(1) == 0) first_exhausted = status;
    });
  }
  ASSERT_GT(exhausted.load(), 0) << "128 MiB queued to a peer that reads nothing";
  {
    std::lock_guard lock(mu);
    // Not an answer of the peer's: the call was never sent, and may go elsewhere.
    EXPECT_EQ(first_exhausted.code(), StatusCode::UNAVAILABLE) << first_exhausted;
    EXPECT_NE(first_exhausted.message().find("max_outbound_bytes 1048576"), std::string::npos)
        << first_exhausted;
    EXPECT_NE(first_exhausted.message().find("not sent"), std::string::npos) << first_exhausted;
  }
  channel.reset();  // fails the calls still pending before `exhausted` goes out of scope
}

}  // namespace
}  // namespace ferry::testing
