#include <google/protobuf/wrappers.pb.h>
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <thread>

#include "ferry/codec/compressor.h"
#include "ferry/codec/serializer.h"
#include "ferry/rpc_meta.pb.h"
#include "frame_client.h"
#include "test_service.h"

namespace ferry::test {
namespace {

using namespace std::chrono_literals;
constexpr std::string_view kService = TestService::kName;

TEST(ServerTest, AnswersARequestWithTheSameIdAndSerializer) {
  TestServer server;
  FrameClient client(server.port());
  ASSERT_TRUE(client.connected());
  ASSERT_TRUE(client.SendRequest(42, kService, "Echo", "hello"));
  auto reply = client.ReadReply();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->request_id, 42u);
  EXPECT_EQ(reply->code, StatusCode::OK) << reply->error;
  EXPECT_EQ(reply->value, "hello");
  EXPECT_EQ(reply->serializer, codec::serializer_id::kProtobuf);

  // A JSON request is answered in JSON.
  codec::BodyOptions json;
  json.serializer = codec::serializer_id::kJson;
  ASSERT_TRUE(client.SendRequest(43, kService, "Echo", "in json", 0, 0, json));
  reply = client.ReadReply();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->code, StatusCode::OK) << reply->error;
  EXPECT_EQ(reply->serializer, codec::serializer_id::kJson);
  EXPECT_EQ(reply->value, "in json");
}

TEST(ServerTest, CompressesLargeResponsesAsConfigured) {
  TestServer server(ServerOptions{.compression = "zstd", .compress_threshold = 1000});
  FrameClient client(server.port());
  const std::string large(5000, 'x');
  ASSERT_TRUE(client.SendRequest(1, kService, "Echo", large));
  ASSERT_TRUE(client.SendRequest(2, kService, "Echo", "small"));
  auto [first, second] = client.ReadTwoReplies(1, 2);
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->compression, codec::compression_id::kZstd);
  EXPECT_TRUE(first->value == large) << "a " << first->value.size() << "-byte value";
  EXPECT_EQ(second->compression, codec::compression_id::kNone);
  EXPECT_EQ(second->value, "small");
}

TEST(ServerTest, FillsTheServerContextFromTheRequest) {
  TestServer server;
  FrameClient client(server.port());
  wire::RpcMeta meta;
  meta.set_service(std::string(kService));
  meta.set_method("Context");
  meta.set_trace_id("4bf92f3577b34da6a3ce929d0e0e4736");
  meta.set_call_id(77);
  meta.set_timeout_us(5'000'000);
  (*meta.mutable_attachments())["tenant"] = "blue";
  google::protobuf::StringValue body;
  codec::FrameHeader header;
  header.request_id = 9;
  ASSERT_TRUE(client.SendFrame(header, meta.SerializeAsString(), body.SerializeAsString()));
  auto reply = client.ReadReply();
  ASSERT_TRUE(reply);
  ASSERT_EQ(reply->code, StatusCode::OK) << reply->error;
  EXPECT_EQ(reply->value.rfind(
                "ferry.test.TestService/Context trace=4bf92f3577b34da6a3ce929d0e0e4736 call=77 "
                "deadline=yes tenant=blue peer=127.0.0.1:",
                0),
            0u)
      << reply->value;
}

// The trace id of a binary call reaches every log line, the status page and downstream calls: one
// that is no W3C trace id is replaced by a fresh one, and the call is served all the same.
TEST(ServerTest, ATraceIdThatIsNoW3CTraceIdIsReplacedByAFreshOne) {
  TestServer server;
  FrameClient client(server.port());
  const std::string prefix = "ferry.test.TestService/Context trace=";
  uint64_t id = 0;
  for (const std::string& sent :
       {std::string("a\nb"), std::string("x\n2026-01-01T00:00:00 server status=OK"), std::string(),
        std::string("t-123"), std::string("4BF92F3577B34DA6A3CE929D0E0E4736"), std::string(32, '0'),
        std::string("4bf92f3577b34da6a3ce929d0e0e47360"),
        std::string("4bf92f3577b34da6a3ce929d0e0e473"), std::string(60000, 'a'),
        std::string("4bf92f3577b34da6a3ce929d0e0e47\xff\xfe")}) {
    wire::RpcMeta meta;
    meta.set_service(std::string(kService));
    meta.set_method("Context");
    meta.set_trace_id(sent);
    meta.set_parent_span_id(0x00f067aa0ba902b7ull);
    google::protobuf::StringValue body;
    codec::FrameHeader header;
    header.request_id = ++id;
    ASSERT_TRUE(client.SendFrame(header, meta.SerializeAsString(), body.SerializeAsString()));
    auto reply = client.ReadReply();
    ASSERT_TRUE(reply) << sent.substr(0, 40);
    ASSERT_EQ(reply->code, StatusCode::OK) << reply->error;
    ASSERT_EQ(reply->value.rfind(prefix, 0), 0u) << reply->value.substr(0, 200);
    const std::string trace =
        reply->value.substr(prefix.size(), reply->value.find(' ', prefix.size()) - prefix.size());
    EXPECT_EQ(trace.size(), 32u) << trace.substr(0, 40);
    EXPECT_EQ(trace.find_first_not_of("0123456789abcdef"), std::string::npos) << trace;
    EXPECT_NE(trace, std::string(32, '0'));
    EXPECT_EQ(reply->value.find('\n'), std::string::npos);
  }
}

TEST(ServerTest, InlineMethodsRunOnTheIoThreadAndOthersOnThePool) {
  TestServer server;
  FrameClient client(server.port());
  ASSERT_TRUE(client.SendRequest(1, kService, "InlineThreadName", ""));
  auto inline_reply = client.ReadReply();
  ASSERT_TRUE(client.SendRequest(2, kService, "ThreadName", ""));
  auto pool_reply = client.ReadReply();
  ASSERT_TRUE(inline_reply && pool_reply);
  EXPECT_EQ(inline_reply->value.rfind("ferry-srv-io", 0), 0u) << inline_reply->value;
  EXPECT_EQ(pool_reply->value.rfind("ferry-worker", 0), 0u) << pool_reply->value;
}

TEST(ServerTest, EveryCallStartsWithAnEmptyResponse) {
  TestServer server;
  FrameClient client(server.port());
  for (const char* method : {"InlineEcho", "Echo"}) {
    ASSERT_TRUE(client.SendRequest(1, kService, method, "first"));
    ASSERT_TRUE(client.SendRequest(2, kService, method, ""));
    auto [first, second] = client.ReadTwoReplies(1, 2);
    ASSERT_TRUE(first && second);
    EXPECT_EQ(first->value, "first");
    EXPECT_EQ(second->value, "") << method;
  }
}

TEST(ServerTest, InlineMethodsAreServedWhileThePoolIsFull) {
  TestServer server(ServerOptions{.worker_threads = 1, .queue_capacity = 1});
  FrameClient client(server.port());
  ASSERT_TRUE(client.SendRequest(1, kService, "Block", "a"));
  ASSERT_TRUE(client.SendRequest(2, kService, "Block", "b"));
  ASSERT_TRUE(server.service().blocked.WaitFor(1));
  ASSERT_TRUE(client.SendRequest(3, kService, "InlineEcho", "still here"));
  auto reply = client.ReadReply();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->request_id, 3u);
  EXPECT_EQ(reply->value, "still here");
  server.service().gate.Open();
}

TEST(ServerTest, AnswersEveryPipelinedRequest) {
  TestServer server;
  FrameClient client(server.port());
  constexpr int kCalls = 200;
  std::string batch;
  for (int i = 1; i <= kCalls; ++i) {
    FrameClient::AppendRequest(i, kService, i % 2 == 0 ? "Echo" : "InlineEcho",
                               "v" + std::to_string(i), &batch);
  }
  ASSERT_TRUE(client.SendBytes(batch));
  std::map<uint64_t, std::string> answers;
  for (int i = 0; i < kCalls; ++i) {
    auto reply = client.ReadReply();
    ASSERT_TRUE(reply) << "after " << i << " replies";
    EXPECT_EQ(reply->code, StatusCode::OK) << reply->error;
    answers[reply->request_id] = reply->value;
  }
  ASSERT_EQ(answers.size(), static_cast<size_t>(kCalls));
  for (int i = 1; i <= kCalls; ++i) EXPECT_EQ(answers[i], "v" + std::to_string(i));
}

TEST(ServerTest, AnswersHeartbeatsWithAHeartbeatReply) {
  TestServer server;
  FrameClient client(server.port());
  codec::FrameHeader heartbeat;
  heartbeat.type = codec::MessageType::kHeartbeat;
  heartbeat.request_id = 5;
  ASSERT_TRUE(client.SendFrame(heartbeat, "", ""));
  auto frame = client.ReadFrame();
  ASSERT_TRUE(frame);
  EXPECT_EQ(frame->header.type, codec::MessageType::kHeartbeat);
  EXPECT_EQ(frame->header.request_id, 5u);
  EXPECT_NE(frame->header.flags & codec::flags::kHeartbeatReply, 0);
}

TEST(ServerTest, OneWayRequestsRunButGetNoResponse) {
  TestServer server;
  FrameClient client(server.port());
  ASSERT_TRUE(client.SendRequest(1, kService, "Count", "", 0, codec::flags::kOneWay));
  ASSERT_TRUE(server.service().counted.WaitFor(1));
  ASSERT_TRUE(client.SendRequest(2, kService, "Echo", "next"));
  auto reply = client.ReadReply();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->request_id, 2u);  // nothing came for request 1
}

TEST(ServerTest, ClosesIdleConnections) {
  TestServer server(ServerOptions{.idle_timeout = 100ms});
  FrameClient client(server.port());
  ASSERT_TRUE(client.SendRequest(1, kService, "Echo", "once"));
  ASSERT_TRUE(client.ReadReply());
  EXPECT_TRUE(client.WaitForClose());
}

TEST(ServerTest, RefusesBadOptionsAndDuplicateServices) {
  TestService service;
  Server duplicate(ServerOptions{});
  EXPECT_TRUE(duplicate.AddService(&service).ok());
  EXPECT_EQ(duplicate.AddService(&service).code(), StatusCode::ALREADY_EXISTS);

  Server bad_compression(ServerOptions{.compression = "lz5"});
  Status s = bad_compression.Start();
  EXPECT_EQ(s.code(), StatusCode::INVALID_ARGUMENT) << s;
  EXPECT_NE(s.message().find("lz5"), std::string::npos) << s;

  Server bad_listen(ServerOptions{.listen = "nonsense"});
  EXPECT_EQ(bad_listen.Start().code(), StatusCode::INVALID_ARGUMENT);

  TestServer running;
  Server taken(ServerOptions{.listen = "127.0.0.1:" + std::to_string(running.port())});
  s = taken.Start();
  EXPECT_EQ(s.code(), StatusCode::UNAVAILABLE) << s;
}

}  // namespace
}  // namespace ferry::test
