#include "client/direct_channel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <latch>
#include <string>
#include <thread>
#include <vector>

#include "channel_test_util.h"
#include "fake_server.h"
#include "ferry/codec/compressor.h"
#include "ferry/codec/serializer.h"

namespace ferry::testing {
namespace {

using std::chrono::milliseconds;

TEST(NewChannelTest, RejectsAnUnknownSerializerByName) {
  ClientOptions options = TestOptions("127.0.0.1:1");
  options.serializer = "yaml";
  std::shared_ptr<Channel> channel;
  const Status status = NewChannel(options, &channel);
  EXPECT_EQ(status.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.message().find("'yaml'"), std::string::npos) << status;
}

TEST(NewChannelTest, RejectsAnUnknownCompressionByName) {
  ClientOptions options = TestOptions("127.0.0.1:1");
  options.compression = "lz77";
  std::shared_ptr<Channel> channel;
  const Status status = NewChannel(options, &channel);
  EXPECT_EQ(status.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.message().find("'lz77'"), std::string::npos) << status;
}

TEST(NewChannelTest, RejectsAnUnparsableTarget) {
  std::shared_ptr<Channel> channel;
  const Status status = NewChannel(TestOptions("no-port-here"), &channel);
  EXPECT_EQ(status.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.message().find("no-port-here"), std::string::npos) << status;
}

TEST(DirectChannelTest, CallsCarryTheirMetaToTheServer) {
  FakeServer server(FakeServer::Mode::kEcho);
  auto channel = MakeChannel(TestOptions(server.target()));
  CallOptions options;
  options.timeout = milliseconds(1500);
  options.request_id = 4242;
  options.trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
  options.attachments = {{"tenant", "blue"}};

  const EchoResult result = Echo(*channel, "hi", options);
  ASSERT_TRUE(result.status.ok()) << result.status;
  EXPECT_EQ(result.value, "echo:hi");
  const wire::RpcMeta meta = server.last_request_meta();
  EXPECT_EQ(meta.service(), "ferry.test.EchoService");
  EXPECT_EQ(meta.method(), "Echo");
  EXPECT_GT(meta.timeout_us(), 0u);
  EXPECT_LE(meta.timeout_us(), 1'500'000u);
  EXPECT_EQ(meta.trace_id(), "4bf92f3577b34da6a3ce929d0e0e4736");
  EXPECT_EQ(meta.call_id(), 4242u);
  ASSERT_EQ(meta.attachments().count("tenant"), 1u);
  EXPECT_EQ(meta.attachments().at("tenant"), "blue");
}

// What goes on the wire as a trace id is one: the callee logs it, shows it and passes it on.
TEST(DirectChannelTest, ReplacesATraceIdThatIsNoW3CTraceId) {
  FakeServer server(FakeServer::Mode::kEcho);
  auto channel = MakeChannel(TestOptions(server.target()));
  for (const char* invalid : {"a\nb", "trace-me", "4BF92F3577B34DA6A3CE929D0E0E4736",
                              "00000000000000000000000000000000"}) {
    CallOptions options;
    options.trace_id = invalid;
    ASSERT_TRUE(Echo(*channel, "hi", options).status.ok());
    const std::string sent = server.last_request_meta().trace_id();
    EXPECT_EQ(sent.size(), 32u) << invalid;
    EXPECT_EQ(sent.find_first_not_of("0123456789abcdef"), std::string::npos) << sent;
    EXPECT_NE(sent, "00000000000000000000000000000000");
  }
}

TEST(DirectChannelTest, GeneratesATraceIdWhenTheCallerGivesNone) {
  FakeServer server(FakeServer::Mode::kEcho);
  auto channel = MakeChannel(TestOptions(server.target()));
  ASSERT_TRUE(Echo(*channel, "a").status.ok());
  const std::string first = server.last_request_meta().trace_id();
  ASSERT_TRUE(Echo(*channel, "b").status.ok());
  const std::string second = server.last_request_meta().trace_id();
  EXPECT_EQ(first.size(), 32u) << "a W3C trace id: 128 bits";
  EXPECT_EQ(first.find_first_not_of("0123456789abcdef"), std::string::npos) << first;
  EXPECT_NE(first, second);
  // Each call is a root span of its own.
  EXPECT_NE(server.last_request_meta().span_id(), 0u);
  EXPECT_EQ(server.last_request_meta().parent_span_id(), 0u);
  // The channel's default timeout stands in for an unset one.
  EXPECT_EQ(server.last_request_meta().timeout_us(), 10'000'000u);
}

TEST(DirectChannelTest, TellsTheServerTheLargestResponseItReadsUnlessItIsTheDefault) {
  FakeServer server(FakeServer::Mode::kEcho);
  auto channel = MakeChannel(TestOptions(server.target()));
  ASSERT_TRUE(Echo(*channel, "a").status.ok());
  EXPECT_EQ(server.last_request_meta().max_response_bytes(), 0u);  // not sent
  ClientOptions small = TestOptions(server.target());
  small.max_frame_bytes = 65536;
  auto limited = MakeChannel(small);
  ASSERT_TRUE(Echo(*limited, "b").status.ok());
  EXPECT_EQ(server.last_request_meta().max_response_bytes(), 65536u);
}

TEST(DirectChannelTest, AServerErrorArrivesAsItsStatusAndMessage) {
  FakeServer server(FakeServer::Mode::kEcho);
  auto channel = MakeChannel(TestOptions(server.target()));
  const EchoResult result = Echo(*channel, "fail");
  EXPECT_EQ(result.status, Status(StatusCode::NOT_FOUND, "fake failure"));
}

// Many threads, many calls in flight each, one connection: every response must reach the call
// that asked for it, and the concurrent writes must share socket writes.
TEST(DirectChannelTest, ConcurrentCallsShareOneConnectionAndGetTheirOwnResponses) {
  constexpr int kThreads = 8;
  constexpr int kCallsPerThread = 500;
  FakeServer server(FakeServer::Mode::kEcho);
  auto channel = MakeChannel(TestOptions(server.target()));
  ASSERT_TRUE(Echo(*channel, "warm-up").status.ok());

  struct Call {
    google::protobuf::StringValue request;
    google::protobuf::StringValue response;
    Status status;
  };
  std::vector<Call> calls(kThreads * kCallsPerThread);
  std::atomic<int> completed{0};
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      for (int i = 0; i < kCallsPerThread; ++i) {
        Call& call = calls[t * kCallsPerThread + i];
        call.request.set_value("t" + std::to_string(t) + "-" + std::to_string(i));
        channel->CallMethod(kEchoMethod, call.request, &call.response, {},
                            [&call, &completed](const Status& status) {
                              call.status = status;
                              completed.fetch_add(1, std::memory_order_release);
                            });
      }
    });
  }
  for (auto& thread : threads) thread.join();
  ASSERT_TRUE(WaitUntil(
      [&] { return completed.load(std::memory_order_acquire) == kThreads * kCallsPerThread; }));

  for (const Call& call : calls) {
    ASSERT_TRUE(call.status.ok()) << call.request.value() << ": " << call.status;
    ASSERT_EQ(call.response.value(), "echo:" + call.request.value());
  }
  EXPECT_EQ(server.connections_accepted(), 1u);
  const client::ClientStats stats = channel->stats();
  EXPECT_EQ(stats.calls_in_flight, 0u);
  EXPECT_EQ(stats.late_responses, 0u);
  EXPECT_EQ(stats.requests_sent, static_cast<uint64_t>(kThreads * kCallsPerThread + 1));
  // Coalescing: frames queued while a write is in progress leave together in the next one.
  // Without it there would be one write per request.
  EXPECT_LT(stats.flushes * 4, stats.requests_sent) << stats.flushes << " writes";
}

TEST(DirectChannelTest, JsonSerializerRoundTrips) {
  FakeServer server(FakeServer::Mode::kEcho);
  ClientOptions options = TestOptions(server.target());
  options.serializer = "json";
  auto channel = MakeChannel(options);
  const EchoResult result = Echo(*channel, "in json");
  ASSERT_TRUE(result.status.ok()) << result.status;
  EXPECT_EQ(result.value, "echo:in json");
  EXPECT_EQ(server.last_request_header().serializer, codec::serializer_id::kJson);
}

TEST(DirectChannelTest, ZstdCompressionRoundTripsAboveTheThreshold) {
  FakeServer server(FakeServer::Mode::kEcho);
  ClientOptions options = TestOptions(server.target());
  options.compression = "zstd";
  options.compress_threshold = 1024;
  auto channel = MakeChannel(options);

  const std::string small = "tiny";
  ASSERT_TRUE(Echo(*channel, small).status.ok());
  EXPECT_EQ(server.last_request_header().compression, codec::compression_id::kNone);

  std::string large;
  for (int i = 0; i < 2000; ++i) large += "block " + std::to_string(i % 7) + ";";
  const EchoResult result = Echo(*channel, large);
  ASSERT_TRUE(result.status.ok()) << result.status;
  EXPECT_EQ(result.value, "echo:" + large);
  const codec::FrameHeader header = server.last_request_header();
  EXPECT_EQ(header.compression, codec::compression_id::kZstd);
  EXPECT_LT(header.body_length, large.size() / 4);
}

TEST(DirectChannelTest, ARequestOverTheFrameLimitFailsAloneWithoutBeingSent) {
  FakeServer server(FakeServer::Mode::kEcho);
  ClientOptions options = TestOptions(server.target());
  options.max_frame_bytes = 1024;
  auto channel = MakeChannel(options);
  ASSERT_TRUE(Echo(*channel, "small").status.ok());

  const EchoResult result = Echo(*channel, std::string(2000, 'x'));
  EXPECT_EQ(result.status.code(), StatusCode::RESOURCE_EXHAUSTED) << result.status;
  EXPECT_NE(result.status.message().find("max_frame_bytes 1024"), std::string::npos);
  EXPECT_EQ(server.requests_received(), 1u);
  EXPECT_TRUE(Echo(*channel, "small again").status.ok());
}

}  // namespace
}  // namespace ferry::testing
