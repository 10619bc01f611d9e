#include <gtest/gtest.h>
#include <sys/resource.h>

#include <chrono>
#include <string>
#include <thread>

#include "ferry/rpc_meta.pb.h"
#include "frame_client.h"
#include "log_capture.h"
#include "log_rate_limiter.h"
#include "test_service.h"

namespace ferry::test {
namespace {

using namespace std::chrono_literals;
constexpr std::string_view kService = TestService::kName;

std::string HeaderBytes(const codec::FrameHeader& header) {
  const auto bytes = codec::WriteHeader(header);
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

// The server still answers a fresh, well-behaved client.
void ExpectStillServing(uint16_t port) {
  FrameClient good(port);
  ASSERT_TRUE(good.connected());
  ASSERT_TRUE(good.SendRequest(1, kService, "Echo", "alive"));
  auto reply = good.ReadReply();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->code, StatusCode::OK) << reply->error;
  EXPECT_EQ(reply->value, "alive");
}

long MaxRssKib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

TEST(ServerFailureTest, BadMagicClosesOnlyThatConnection) {
  TestServer server;
  FrameClient bystander(server.port());
  FrameClient bad(server.port());
  // Neither Ferry's magic nor the letters an HTTP request starts with.
  ASSERT_TRUE(bad.SendBytes("\x01garbage that is no frame\r\n\r\n"));
  EXPECT_TRUE(bad.WaitForClose());
  // A connection opened before the bad one is unaffected.
  ASSERT_TRUE(bystander.SendRequest(7, kService, "Echo", "fine"));
  auto reply = bystander.ReadReply();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->value, "fine");
  ExpectStillServing(server.port());
}

TEST(ServerFailureTest, UnsupportedMajorVersionClosesTheConnection) {
  TestServer server;
  FrameClient bad(server.port());
  codec::FrameHeader header;
  header.version_major = codec::kVersionMajor + 1;
  ASSERT_TRUE(bad.SendBytes(HeaderBytes(header)));
  EXPECT_TRUE(bad.WaitForClose());
  ExpectStillServing(server.port());
}

TEST(ServerFailureTest, OversizeLengthClosesTheConnectionWithoutAllocatingIt) {
  TestServer server;
  const long rss_before = MaxRssKib();
  FrameClient bad(server.port());
  codec::FrameHeader header;
  header.body_length = 1u << 30;  // claims 1 GiB
  ASSERT_TRUE(bad.SendBytes(HeaderBytes(header) + std::string(100, 'x')));
  EXPECT_TRUE(bad.WaitForClose());
  // Peak memory did not grow by anything like the claimed size.
  EXPECT_LT(MaxRssKib() - rss_before, 256 * 1024);
  ExpectStillServing(server.port());
}

TEST(ServerFailureTest, TruncatedFrameThenCloseCostsOnlyThatConnection) {
  TestServer server;
  FrameClient bad(server.port());
  std::string frame;
  FrameClient::AppendRequest(1, kService, "Echo", "cut short", &frame);
  ASSERT_TRUE(bad.SendBytes(frame.substr(0, frame.size() - 3)));
  bad.ShutdownWrite();
  EXPECT_TRUE(bad.WaitForClose());
  ExpectStillServing(server.port());
}

TEST(ServerFailureTest, UnknownServiceAndMethodAreUnimplemented) {
  TestServer server;
  FrameClient client(server.port());
  ASSERT_TRUE(client.SendRequest(1, "ferry.test.Nope", "Echo", ""));
  auto reply = client.ReadReply();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->code, StatusCode::UNIMPLEMENTED);
  EXPECT_EQ(reply->error, "unknown service 'ferry.test.Nope'");

  ASSERT_TRUE(client.SendRequest(2, kService, "Shout", ""));
  reply = client.ReadReply();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->code, StatusCode::UNIMPLEMENTED);
  EXPECT_EQ(reply->error, "unknown method 'Shout' of service 'ferry.test.TestService'");
}

TEST(ServerFailureTest, UndecodableMetaOrBodyIsInvalidArgument) {
  TestServer server;
  FrameClient client(server.port());
  wire::RpcMeta meta;
  meta.set_service(std::string(kService));
  meta.set_method("Echo");
  codec::FrameHeader header;
  header.request_id = 1;
  // Field 1 (the StringValue's value) claims 100 bytes and has 2.
  ASSERT_TRUE(client.SendFrame(header, meta.SerializeAsString(), std::string("\x0a\x64hi", 4)));
  auto reply = client.ReadReply();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->request_id, 1u);
  EXPECT_EQ(reply->code, StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(reply->error.find("google.protobuf.StringValue"), std::string::npos) << reply->error;

  header.request_id = 2;
  ASSERT_TRUE(client.SendFrame(header, std::string("\xff\xff\xff", 3), ""));
  reply = client.ReadReply();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->request_id, 2u);
  EXPECT_EQ(reply->code, StatusCode::INVALID_ARGUMENT);

  // Neither cost the connection.
  ASSERT_TRUE(client.SendRequest(3, kService, "InlineEcho", "ok"));
  reply = client.ReadReply();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->value, "ok");
}

TEST(ServerFailureTest, HandlerExceptionIsInternalAndTheServerKeepsServing) {
  TestServer server;
  FrameClient client(server.port());
  ASSERT_TRUE(client.SendRequest(1, kService, "Throw", ""));
  auto reply = client.ReadReply();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->code, StatusCode::INTERNAL);
  EXPECT_EQ(reply->error, "handler ferry.test.TestService/Throw threw: boom");
  ASSERT_TRUE(client.SendRequest(2, kService, "Echo", "after"));
  reply = client.ReadReply();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->value, "after");
}

TEST(ServerFailureTest, FullPoolAnswersOverloadedAtOnce) {
  TestServer server(ServerOptions{.worker_threads = 1, .queue_capacity = 1});
  FrameClient client(server.port());
  ASSERT_TRUE(client.SendRequest(1, kService, "Block", "one"));
  ASSERT_TRUE(client.SendRequest(2, kService, "Block", "two"));
  ASSERT_TRUE(server.service().blocked.WaitFor(1));
  ASSERT_TRUE(client.SendRequest(3, kService, "Echo", ""));
  ASSERT_TRUE(client.SendRequest(4, kService, "Echo", ""));
  // Answered while the only worker is still blocked: nothing waited for room in the queue.
  for (uint64_t id : {3u, 4u}) {
    auto reply = client.ReadReply();
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->request_id, id);
    EXPECT_EQ(reply->code, StatusCode::OVERLOADED);
    EXPECT_EQ(reply->error, "server overloaded: business queue full (capacity 1)");
  }
  server.service().gate.Open();
  for (uint64_t id : {1u, 2u}) {
    auto reply = client.ReadReply();
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->request_id, id);
    EXPECT_EQ(reply->code, StatusCode::OK) << reply->error;
  }
}

TEST(ServerFailureTest, RequestWhoseDeadlinePassedInTheQueueIsNotRun) {
  TestServer server(ServerOptions{.worker_threads = 1});
  FrameClient client(server.port());
  ASSERT_TRUE(client.SendRequest(1, kService, "Block", ""));
  ASSERT_TRUE(server.service().blocked.WaitFor(1));
  constexpr auto kBudget = 20ms;
  ASSERT_TRUE(client.SendRequest(2, kService, "Count", "", 20'000));
  // The server's deadline is at most kBudget after our send, so it has passed after this.
  std::this_thread::sleep_for(kBudget * 3);
  server.service().gate.Open();
  auto first = client.ReadReply();
  auto second = client.ReadReply();
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->code, StatusCode::OK);
  EXPECT_EQ(second->request_id, 2u);
  EXPECT_EQ(second->code, StatusCode::DEADLINE_EXCEEDED) << second->error;
  EXPECT_EQ(server.service().counted.value(), 0);
}

TEST(ServerFailureTest, CancelledQueuedCallIsNotRun) {
  TestServer server(ServerOptions{.worker_threads = 1});
  FrameClient client(server.port());
  ASSERT_TRUE(client.SendRequest(1, kService, "Block", ""));
  ASSERT_TRUE(server.service().blocked.WaitFor(1));
  ASSERT_TRUE(client.SendRequest(2, kService, "Count", ""));
  codec::FrameHeader cancel;
  cancel.type = codec::MessageType::kCancel;
  cancel.request_id = 2;
  ASSERT_TRUE(client.SendFrame(cancel, "", ""));
  // Frames are handled in order: once the heartbeat is answered, the cancel has been seen.
  codec::FrameHeader heartbeat;
  heartbeat.type = codec::MessageType::kHeartbeat;
  ASSERT_TRUE(client.SendFrame(heartbeat, "", ""));
  auto pong = client.ReadFrame();
  ASSERT_TRUE(pong);
  ASSERT_EQ(pong->header.type, codec::MessageType::kHeartbeat);
  server.service().gate.Open();
  auto first = client.ReadReply();
  auto second = client.ReadReply();
  ASSERT_TRUE(first && second);
  EXPECT_EQ(second->request_id, 2u);
  EXPECT_EQ(second->code, StatusCode::CANCELLED) << second->error;
  EXPECT_EQ(server.service().counted.value(), 0);
}

TEST(ServerFailureTest, UnexpectedFrameTypesAreSkipped) {
  TestServer server;
  FrameClient client(server.port());
  codec::FrameHeader odd;
  odd.type = static_cast<codec::MessageType>(9);
  ASSERT_TRUE(client.SendFrame(odd, "", "some body"));
  odd.type = codec::MessageType::kResponse;
  ASSERT_TRUE(client.SendFrame(odd, "", ""));
  ASSERT_TRUE(client.SendRequest(1, kService, "Echo", "in step"));
  auto reply = client.ReadReply();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->value, "in step");
}

// A peer may send frames the server skips as fast as it likes, before it ever authenticated:
// their log lines are rate-limited, so a flood of them cannot flood the log.
TEST(ServerFailureTest, AFloodOfUnexpectedFramesLogsABoundedNumberOfLines) {
  testsupport::LogCapture log;
  TestServer server;
  FrameClient client(server.port());
  codec::FrameHeader odd;
  odd.type = static_cast<codec::MessageType>(9);
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(client.SendFrame(odd, "", "some body"));
  // Answered after the server went through every frame before it.
  ASSERT_TRUE(client.SendRequest(1, kService, "Echo", "in step"));
  auto reply = client.ReadReply();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->value, "in step");
  EXPECT_LE(log.Messages("ferry server: ignoring").size(), LogRateLimiter::kDefaultBurst);
}

// Anyone who can reach the port can open connection after connection and send garbage: the
// warning each closed connection gets is rate-limited like the other lines a peer can cause.
TEST(ServerFailureTest, ConnectionsClosedForMalformedInputLogABoundedNumberOfWarnings) {
  testsupport::LogCapture log;
  TestServer server;
  codec::FrameHeader header;
  header.version_major = codec::kVersionMajor + 1;
  constexpr int kConnections = 3 * LogRateLimiter::kDefaultBurst;
  for (int i = 0; i < kConnections; ++i) {
    FrameClient bad(server.port());
    ASSERT_TRUE(bad.SendBytes(HeaderBytes(header)));
    ASSERT_TRUE(bad.WaitForClose());
  }
  EXPECT_LE(log.Count(spdlog::level::warn, "malformed input"), LogRateLimiter::kDefaultBurst);
  ExpectStillServing(server.port());
}

}  // namespace
}  // namespace ferry::test
