// One ClientConnection with its threads stopped at chosen points (ClientConnectionPeer's hooks),
// so that each test plays one interleaving of a link ending and calls being made, exactly.
#include <google/protobuf/wrappers.pb.h>
#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <utility>

#include "channel_test_util.h"
#include "client/client_connection.h"
#include "client_connection_peer.h"
#include "fake_server.h"
#include "ferry/rpc_meta.pb.h"
#include "transport/endpoint.h"

namespace ferry::testing {
namespace {

using client::ClientConnection;
using client::ClientConnectionPeer;
using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

// A port on 127.0.0.1 nothing listens on: connects to it are refused at once.
uint16_t RefusingPort() {
  boost::asio::io_context io;
  boost::asio::ip::tcp::acceptor acceptor(
      io, boost::asio::ip::tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0));
  return acceptor.local_endpoint().port();
}

ClientOptions ConnectionOptions(milliseconds reconnect_initial, milliseconds reconnect_max) {
  ClientOptions options;
  options.reconnect_initial = reconnect_initial;
  options.reconnect_max = reconnect_max;
  options.connect_timeout = std::chrono::seconds(5);
  options.heartbeat_interval = milliseconds(0);
  return options;
}

std::shared_ptr<ClientConnection> NewConnection(boost::asio::io_context& io, uint16_t port,
                                                const ClientOptions& options) {
  transport::Endpoint endpoint;
  EXPECT_TRUE(transport::ParseEndpoint("127.0.0.1:" + std::to_string(port), &endpoint).ok());
  return std::make_shared<ClientConnection>(io, endpoint, options, codec::BodyOptions{});
}

// One call on a connection: its id, and its status once done ran (on whichever thread).
class OneCall {
 public:
  explicit OneCall(std::string value) { request_.set_value(std::move(value)); }

  uint64_t Start(ClientConnection& connection) {
    wire::RpcMeta meta;
    meta.set_service(std::string(kEchoMethod.service));
    meta.set_method(std::string(kEchoMethod.method));
    return connection.Call(meta, request_, nullptr, &response_,
                           Clock::now() + std::chrono::seconds(10), std::chrono::seconds(10),
                           [this](const Status& status) {
                             completions_.fetch_add(1);
                             status_.set_value(status);
                           });
  }
  bool done() const { return completions_.load() > 0; }
  // Waits for done (10 s at most: a hang shows as DEADLINE_EXCEEDED "test gave up").
  Status Wait() {
    if (result_.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
      return Status(StatusCode::DEADLINE_EXCEEDED, "test gave up");
    }
    return result_.get();
  }
  int completions() const { return completions_.load(); }
  const std::string& response() const { return response_.value(); }

 private:
  google::protobuf::StringValue request_;
  google::protobuf::StringValue response_;
  std::atomic<int> completions_{0};
  std::promise<Status> status_;
  std::shared_future<Status> result_ = status_.get_future().share();
};

// Runs `io` on a thread of its own until destroyed.
class IoThread {
 public:
  explicit IoThread(boost::asio::io_context& io)
      : io_(io), work_(io.get_executor()), thread_([this] { io_.run(); }) {}
  ~IoThread() {
    work_.reset();
    io_.stop();
    thread_.join();
  }

 private:
  boost::asio::io_context& io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::thread thread_;
};

// F3 of docs/reviews: a caller that read link 1 in backoff, found it over and was then
// preempted until link 1 had connected, failed and gone into a backoff of its own must not start
// the next connect: that backoff is link 2's, not over, and is waited out.
TEST(ConnectionInterleavingTest, ABackoffThatEndedWhileACallerLookedIsNotMistakenForTheNext) {
  boost::asio::io_context io;  // run by this thread only, step by step
  auto connection =
      NewConnection(io, RefusingPort(), ConnectionOptions(milliseconds(200), milliseconds(10000)));
  OneCall first("first");
  ASSERT_NE(first.Start(*connection), 0u);
  // Link 0 is refused; link 1 waits out its backoff.
  const Clock::time_point give_up = Clock::now() + std::chrono::seconds(10);
  while (connection->link() < 1 && Clock::now() < give_up) io.run_one_for(milliseconds(10));
  ASSERT_EQ(connection->link(), 1u);
  EXPECT_EQ(first.Wait().code(), StatusCode::UNAVAILABLE);
  // Over, but its timer has not run: nothing runs the IO until the caller below is preempted.
  std::this_thread::sleep_until(ClientConnectionPeer::RetryAt(*connection) + milliseconds(1));

  std::atomic<bool> preempted{false};
  ClientConnectionPeer::ScopedHooks hooks({.backoff_over = [&](ClientConnection& c) {
    if (preempted.exchange(true)) return;
    // Meanwhile: the backoff timer starts link 1's connect, which is refused, and link 2 goes
    // into a backoff of its own.
    while (c.link() < 2 && Clock::now() < give_up) io.run_one_for(milliseconds(10));
  }});
  OneCall second("second");
  const uint64_t id = second.Start(*connection);
  ASSERT_TRUE(preempted.load());
  ASSERT_EQ(connection->link(), 2u);
  ASSERT_GT(ClientConnectionPeer::RetryAt(*connection), Clock::now());
  EXPECT_EQ(id, 0u) << "the call was queued, starting a connect during link 2's backoff";
  ASSERT_TRUE(second.done());
  const Status status = second.Wait();
  EXPECT_EQ(status.code(), StatusCode::UNAVAILABLE);
  EXPECT_NE(status.message().find("next attempt in"), std::string::npos) << status;
  io.poll();  // anything the call posted
  EXPECT_TRUE(ClientConnectionPeer::InBackoff(*connection));
  EXPECT_EQ(connection->link(), 2u);

  connection->Shutdown();
  io.restart();
  io.run_for(milliseconds(100));
}

// F2: when a link ends, a call made meanwhile that was admitted to the next link (its backoff
// over already: the IO thread was slow to fail the ended link's calls) is that link's. Failing
// it with the ended link would report it certainly unsent while its bytes go out once the next
// link connects.
TEST(ConnectionInterleavingTest, ACallQueuedOnTheNextLinkIsNotFailedWithTheLinkThatEnded) {
  FakeServer server(FakeServer::Mode::kEcho);
  boost::asio::io_context io;
  auto connection =
      NewConnection(io, server.port(), ConnectionOptions(milliseconds(1), milliseconds(1)));
  IoThread io_thread(io);
  OneCall warm_up("warm-up");
  ASSERT_NE(warm_up.Start(*connection), 0u);
  ASSERT_TRUE(warm_up.Wait().ok());
  ASSERT_EQ(connection->link(), 0u);

  OneCall late("late");
  std::promise<std::pair<uint64_t, uint64_t>> late_call;  // its link and id
  std::atomic<bool> hooked{false};
  ClientConnectionPeer::ScopedHooks hooks({.link_ended = [&](ClientConnection& c) {
    if (hooked.exchange(true)) return;
    // The IO thread stalls here past link 1's backoff; a caller then starts link 1 itself.
    std::this_thread::sleep_until(ClientConnectionPeer::RetryAt(c) + milliseconds(1));
    std::thread caller([&] {
      const uint64_t link = c.link();
      late_call.set_value({link, late.Start(c)});
    });
    caller.join();
  }});
  server.CloseConnections();
  std::future<std::pair<uint64_t, uint64_t>> queued = late_call.get_future();
  ASSERT_EQ(queued.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  const auto [link, id] = queued.get();
  ASSERT_EQ(link, 1u) << "admitted to the next link";
  ASSERT_NE(id, 0u) << "queued";
  const Status status = late.Wait();
  // Failed with link 0 it would be UNAVAILABLE, judged certainly unsent (link 1 had not
  // connected), and still sent once link 1 connected.
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_EQ(late.response(), status.ok() ? "echo:late" : "");
  EXPECT_TRUE(WaitUntil([&] { return server.requests_received() == 2; }));
  EXPECT_EQ(late.completions(), 1);
  connection->Shutdown();
}

// F9: a call whose link ended between its admission and its queueing is refused as stale,
// having queued nothing: Call() returns 0, as for every call certainly not sent, so that a
// cluster channel may send it elsewhere.
TEST(ConnectionInterleavingTest, ACallRefusedByTheLinkThatEndedUnderItReturnsNoId) {
  FakeServer server(FakeServer::Mode::kEcho);
  boost::asio::io_context io;
  auto connection =
      NewConnection(io, server.port(), ConnectionOptions(milliseconds(1000), milliseconds(1000)));
  IoThread io_thread(io);
  OneCall warm_up("warm-up");
  ASSERT_NE(warm_up.Start(*connection), 0u);
  ASSERT_TRUE(warm_up.Wait().ok());

  OneCall stale("stale");
  std::promise<uint64_t> stale_id;
  std::atomic<bool> hooked{false};
  ClientConnectionPeer::ScopedHooks hooks({.queue_cleared = [&](ClientConnection& c) {
    if (hooked.exchange(true)) return;
    std::thread caller([&] { stale_id.set_value(stale.Start(c)); });
    caller.join();
  }});
  server.CloseConnections();
  std::future<uint64_t> id = stale_id.get_future();
  ASSERT_EQ(id.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_EQ(id.get(), 0u) << "nothing was queued, yet the call has an id";
  const Status status = stale.Wait();
  EXPECT_EQ(status.code(), StatusCode::UNAVAILABLE) << status;
  EXPECT_EQ(stale.completions(), 1);
  EXPECT_EQ(server.requests_received(), 1u);
  connection->Shutdown();
}

}  // namespace
}  // namespace ferry::testing
