#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>
#include <vector>

#include "echo_fixture.h"
#include "ferry/codec/frame_header.h"

namespace ferry::e2e {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

TEST_F(EchoFixture, TimeoutCompletesOnceAndTheLateResponseIsDropped) {
  StartServer();
  auto proxy = NewProxy();
  std::atomic<int> completions{0};
  std::promise<Status> first;
  CallOptions options;
  options.timeout = 50ms;
  proxy.DelayWithCallback(
      MakeDelay(300),
      [&](Result<demo::EchoResponse> r) {
        if (completions.fetch_add(1) == 0) first.set_value(r.status());
      },
      options);
  Status s = first.get_future().get();
  EXPECT_EQ(s.code(), StatusCode::DEADLINE_EXCEEDED) << s;
  // The server answers after 300 ms; that answer must not complete the call a second time.
  std::this_thread::sleep_for(450ms);
  EXPECT_EQ(completions.load(), 1);
  // And the connection is still good for the next call.
  auto next = proxy.Echo(MakeEcho("after"));
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_EQ(next->payload(), "after");
}

TEST_F(EchoFixture, FullBusinessPoolAnswersOverloadedAtOnce) {
  StartServer(ServerOptions{.worker_threads = 1, .queue_capacity = 1});
  auto proxy = NewProxy(ClientOptions{.default_timeout = 5s});
  std::vector<CallFuture<demo::EchoResponse>> calls;
  for (int i = 0; i < 8; ++i) calls.push_back(proxy.DelayAsync(MakeDelay(300)));
  int ok = 0, overloaded = 0;
  for (auto& call : calls) {
    auto r = call.get();
    if (r.ok()) ++ok;
    if (r.status().code() == StatusCode::OVERLOADED) ++overloaded;
  }
  // One runs, one waits in the queue; the rest are turned away rather than queued.
  EXPECT_EQ(ok, 2);
  EXPECT_EQ(overloaded, 6);
  // Inline methods do not need the pool, so they are served even while it is full.
  auto busy = proxy.DelayAsync(MakeDelay(300));
  auto echo = proxy.Echo(MakeEcho("still here"));
  ASSERT_TRUE(echo.ok()) << echo.status();
  const auto delayed = busy.get();
  EXPECT_TRUE(delayed.ok()) << delayed.status();
}

TEST_F(EchoFixture, HandlerFailuresBecomeStatuses) {
  StartServer();
  auto proxy = NewProxy();
  demo::DelayRequest fail;
  fail.set_fail_code(static_cast<uint32_t>(StatusCode::NOT_FOUND));
  fail.set_fail_message("no such thing");
  auto r = proxy.Delay(fail);
  EXPECT_EQ(r.status().code(), StatusCode::NOT_FOUND);
  EXPECT_EQ(r.status().message(), "no such thing");

  demo::DelayRequest boom;
  boom.set_throw_exception(true);
  r = proxy.Delay(boom);
  EXPECT_EQ(r.status().code(), StatusCode::INTERNAL) << r.status();

  auto after = proxy.Echo(MakeEcho("alive"));
  ASSERT_TRUE(after.ok()) << after.status();
}

TEST_F(EchoFixture, UnknownMethodIsUnimplemented) {
  StartServer();
  auto channel = NewClientChannel();
  struct Case {
    MethodSpec spec;
    std::string named;  // what the error message must name
  };
  const Case cases[] = {{{"ferry.demo.EchoService", "Shout"}, "Shout"},
                        {{"ferry.demo.NoSuchService", "Echo"}, "ferry.demo.NoSuchService"}};
  for (const Case& c : cases) {
    demo::EchoRequest request;
    demo::EchoResponse response;
    std::promise<Status> done;
    channel->CallMethod(c.spec, request, &response, CallOptions{},
                        [&](const Status& s) { done.set_value(s); });
    Status s = done.get_future().get();
    EXPECT_EQ(s.code(), StatusCode::UNIMPLEMENTED) << s;
    EXPECT_NE(s.message().find(c.named), std::string::npos) << s;
  }
}

// Raw bytes that are not Ferry frames, sent to the live server, must cost only that
// connection.
TEST_F(EchoFixture, GarbageConnectionsDoNotHurtGoodClients) {
  StartServer();
  auto send_raw = [&](const std::string& bytes) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(server_->port());
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    ASSERT_EQ(::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(bytes.size()));
    // The server closes a connection that sent garbage: read returns 0 (or an error).
    char buf[64];
    timeval tv{.tv_sec = 5, .tv_usec = 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    EXPECT_LE(::recv(fd, buf, sizeof(buf), 0), 0);
    ::close(fd);
  };
  send_raw("\x01not a frame, not HTTP\r\n\r\n");
  auto header = codec::WriteHeader(codec::FrameHeader{.body_length = 0x7FFFFFFF});
  send_raw(std::string(header.begin(), header.end()));

  auto proxy = NewProxy();
  auto r = proxy.Echo(MakeEcho("good"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->payload(), "good");
}

TEST_F(EchoFixture, ServerStopFailsPendingCallsPromptly) {
  StartServer(ServerOptions{.grace_period = 100ms});
  auto proxy = NewProxy(ClientOptions{.default_timeout = 10s});
  auto pending = proxy.DelayAsync(MakeDelay(5000));
  std::this_thread::sleep_for(50ms);
  const auto start = Clock::now();
  std::thread stopper([&] { server_->Stop(); });
  auto r = pending.get();
  stopper.join();
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(r.status().code() == StatusCode::UNAVAILABLE ||
              r.status().code() == StatusCode::CANCELLED)
      << r.status();
  EXPECT_LT(Clock::now() - start, 5s) << "the call waited for its own timeout";
}

}  // namespace
}  // namespace ferry::e2e
