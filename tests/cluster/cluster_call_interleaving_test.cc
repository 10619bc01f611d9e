// A cluster call whose attempt races a link ending or a cancel, each race played exactly: the
// connection's threads stop at named points (ClientConnectionPeer's hooks), and a serializer
// holds a response's parse until the test lets it go.
#include <google/protobuf/message.h>
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "client/client_connection.h"
#include "client_connection_peer.h"
#include "cluster_test_util.h"
#include "ferry/codec/extension_registry.h"
#include "ferry/codec/serializer.h"
#include "test_provider.h"

namespace ferry::cluster {
namespace {

using client::ClientConnection;
using client::ClientConnectionPeer;

// Protobuf's binary encoding, under a serializer of its own whose Parse of an EchoResponse,
// once armed, stops until released: the client's IO thread is then inside the parse of a
// response into the caller's message, for as long as the test needs.
class LatchedSerializer final : public codec::Serializer {
 public:
  static constexpr std::string_view kName = "latched-test";

  // The next EchoResponse parsed stops in Parse.
  void Arm() {
    entered_ = {};
    release_ = {};
    parsed_ = {};
    armed_.store(true);
  }
  bool WaitEntered() { return entered_.get_future().wait_for(10s) == std::future_status::ready; }
  void Release() { release_.set_value(); }
  // The parse is over: it writes into the message no more.
  bool WaitParsed() { return parsed_.get_future().wait_for(10s) == std::future_status::ready; }

  uint8_t id() const override { return 120; }
  std::string_view name() const override { return kName; }
  bool Serialize(const google::protobuf::Message& message, std::string* out) const override {
    return message.AppendToString(out);
  }
  bool Parse(std::string_view data, google::protobuf::Message* message) const override {
    const bool latched =
        message->GetDescriptor() == demo::EchoResponse::descriptor() && armed_.exchange(false);
    if (latched) {
      entered_.set_value();
      release_.get_future().wait();
    }
    const bool parsed = message->ParseFromArray(data.data(), static_cast<int>(data.size()));
    if (latched) parsed_.set_value();
    return parsed;
  }

 private:
  mutable std::atomic<bool> armed_{false};
  mutable std::promise<void> entered_;
  mutable std::promise<void> release_;
  mutable std::promise<void> parsed_;
};

LatchedSerializer& Latched() {
  static const std::shared_ptr<LatchedSerializer> serializer = [] {
    auto created = std::make_shared<LatchedSerializer>();
    ExtensionRegistry::Instance().Register<codec::Serializer>(std::string(LatchedSerializer::kName),
                                                              [created] { return created; });
    return created;
  }();
  return *serializer;
}

// F1 of the concurrency review: a failover call parses its response into the caller's message.
// A cancel that comes while the IO thread is doing so must not answer the caller before that
// parse is over, or the caller frees the message under it (under ASan, a heap-use-after-free in
// Parse).
TEST(ClusterCallInterleavingTest, ACancelDuringTheResponsesParseAnswersOnceTheParseIsOver) {
  LatchedSerializer& serializer = Latched();
  TestProvider provider;
  ClusterOptions options = TestOptions("failover");
  options.client.serializer = std::string(LatchedSerializer::kName);
  demo::EchoServiceProxy proxy(NewTestChannel(options, StaticRegistry({provider.address()})));
  ASSERT_TRUE(proxy.Echo(EchoOf("connects")).ok());

  serializer.Arm();
  std::optional<CallFuture<demo::EchoResponse>> call = proxy.EchoAsync(EchoOf("parsed late"));
  ASSERT_TRUE(serializer.WaitEntered());
  call->Cancel();
  const bool answered_early = call->wait_for(100ms) == std::future_status::ready;
  EXPECT_FALSE(answered_early) << "answered while its response was still being parsed";
  // What a caller answered does: lets go of the call, and with it of the response.
  if (answered_early) call.reset();
  serializer.Release();
  ASSERT_TRUE(serializer.WaitParsed());
  if (call) {
    ASSERT_EQ(call->wait_for(10s), std::future_status::ready);
    EXPECT_EQ(call->get().status().code(), StatusCode::CANCELLED);
  }
  // The channel still works, and the provider is not held responsible.
  EXPECT_TRUE(proxy.Echo(EchoOf("after")).ok());
}

// Two providers; `first` closes connections idle for kIdle, so its link ends by itself, on its
// connection's IO thread, while the provider stays up to take the next link.
class LinkEndingTest : public ::testing::Test {
 protected:
  static constexpr auto kIdle = 300ms;
  static ServerOptions ClosesIdleConnections() {
    ServerOptions options;
    options.idle_timeout = kIdle;
    return options;
  }

  void SetUp() override {
    ClusterOptions options = TestOptions("failover");  // two attempts, whatever the method
    options.loadbalance.name = "consistent_hash";
    // Each link's backoff is over almost at once, and nothing keeps an idle link alive.
    options.client.reconnect_initial = 1ms;
    options.client.reconnect_max = 1ms;
    options.client.heartbeat_interval = 0ms;
    channel_ = NewTestChannel(options, StaticRegistry({first_.address(), second_.address()}));
    proxy_.emplace(channel_);
    // A hash key whose calls go to `first`; the call finding it connects there.
    for (uint64_t key = 0; key < 64 && !to_first_.hash_key; ++key) {
      const uint64_t before = first_.echo_calls();
      CallOptions options;
      options.hash_key = key;
      ASSERT_TRUE(proxy_->Echo(EchoOf("find"), options).ok());
      if (first_.echo_calls() > before) to_first_.hash_key = key;
    }
    ASSERT_TRUE(to_first_.hash_key.has_value());
    first_before_ = first_.delay_calls();
    second_before_ = second_.delay_calls();
  }

  // Makes a call of Delay, which is not idempotent, to `first` from a thread of its own, and
  // returns once it was handed to `first`'s connection (and Call() returned). Its result goes
  // to `answer_`.
  void CallFirstFromAnotherThread() {
    std::thread caller([this] {
      handle_ = proxy_->DelayWithCallback(
          DelayOf(0),
          [this](Result<demo::EchoResponse> result) { answer_.set_value(std::move(result)); },
          to_first_);
    });
    caller.join();
  }

  Result<demo::EchoResponse> Answer() {
    std::future<Result<demo::EchoResponse>> answer = answer_.get_future();
    if (answer.wait_for(10s) != std::future_status::ready) {
      return Status(StatusCode::DEADLINE_EXCEEDED, "test gave up");
    }
    return answer.get();
  }
  // Delay calls each provider ran since SetUp.
  uint64_t FirstRan() const { return first_.delay_calls() - first_before_; }
  uint64_t SecondRan() const { return second_.delay_calls() - second_before_; }

  TestProvider first_{ClosesIdleConnections()};
  TestProvider second_;
  std::shared_ptr<Channel> channel_;
  std::optional<demo::EchoServiceProxy> proxy_;
  CallOptions to_first_;
  uint64_t first_before_ = 0;
  uint64_t second_before_ = 0;
  CallHandle handle_;
  std::promise<Result<demo::EchoResponse>> answer_;
};

// F2: `first`'s IO thread, ending its link, is slow to fail that link's calls, long enough for
// the next link's backoff to be over. A call made then is admitted to the next link and queued
// on it: it leaves once that link connects, so failing it with the link that ended (and judging
// it certainly unsent, as that next link had not connected) would run it on `second` as well.
TEST_F(LinkEndingTest, ANonIdempotentCallQueuedOnTheNextLinkRunsOnce) {
  std::atomic<bool> hooked{false};
  ClientConnectionPeer::ScopedHooks hooks({.link_ended = [&](ClientConnection& connection) {
    if (ClientConnectionPeer::Peer(connection) != first_.address() || hooked.exchange(true)) {
      return;
    }
    std::this_thread::sleep_until(ClientConnectionPeer::RetryAt(connection) + 1ms);
    CallFirstFromAnotherThread();
  }});
  const Result<demo::EchoResponse> answer = Answer();  // once `first` closed the idle link
  ASSERT_TRUE(hooked.load());
  EXPECT_TRUE(answer.ok()) << answer.status();
  EXPECT_TRUE(WaitFor([&] { return FirstRan() + SecondRan() >= 1; }, 2s));
  std::this_thread::sleep_for(50ms);  // time for a duplicate to land
  EXPECT_EQ(FirstRan(), 1u);
  EXPECT_EQ(SecondRan(), 0u) << "run on both providers";
}

// F9: the call reaches `first`'s connection while its link is ending, after the write queue was
// closed to that link: refused as stale, it queued nothing, so it certainly was not sent and,
// non-idempotent as it is, goes to `second`.
TEST_F(LinkEndingTest, ANonIdempotentCallRefusedByTheEndingLinkGoesElsewhere) {
  std::atomic<bool> hooked{false};
  ClientConnectionPeer::ScopedHooks hooks({.queue_cleared = [&](ClientConnection& connection) {
    if (ClientConnectionPeer::Peer(connection) != first_.address() || hooked.exchange(true)) {
      return;
    }
    CallFirstFromAnotherThread();
  }});
  const Result<demo::EchoResponse> answer = Answer();
  ASSERT_TRUE(hooked.load());
  EXPECT_TRUE(answer.ok()) << answer.status();
  EXPECT_EQ(SecondRan(), 1u);
  EXPECT_EQ(FirstRan(), 0u);
}

}  // namespace
}  // namespace ferry::cluster
