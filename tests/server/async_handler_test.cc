// Handlers that answer after they return (ServerDone), from threads of their own: on the pool
// and inline, with other calls served meanwhile, and handlers that drop or misuse their
// completion.
#include <gtest/gtest.h>

#include <chrono>

#include "frame_client.h"
#include "test_service.h"

namespace ferry::test {
namespace {

using namespace std::chrono_literals;
constexpr std::string_view kService = TestService::kName;

// A pending asynchronous call holds no business thread: with the pool's only thread, a pool
// call is still served while Later waits.
TEST(AsyncHandlerTest, APendingPoolCallHoldsNoBusinessThread) {
  TestServer server(ServerOptions{.worker_threads = 1});
  FrameClient client(server.port());
  ASSERT_TRUE(client.SendRequest(1, kService, "Later", "later"));
  ASSERT_TRUE(server.service().later_started.WaitFor(1));
  ASSERT_TRUE(client.SendRequest(2, kService, "Echo", "meanwhile"));
  auto meanwhile = client.ReadReply();
  ASSERT_TRUE(meanwhile);
  EXPECT_EQ(meanwhile->request_id, 2u);
  EXPECT_EQ(meanwhile->value, "meanwhile");
  server.service().gate.Open();
  auto later = client.ReadReply();
  ASSERT_TRUE(later);
  EXPECT_EQ(later->request_id, 1u);
  EXPECT_EQ(later->code, StatusCode::OK) << later->error;
  EXPECT_EQ(later->value, "later");
}

// An inline call that goes on asynchronously leaves the connection's reused call object: the
// connection's next inline calls get their own, and each answer carries its own request.
TEST(AsyncHandlerTest, InlineCallsAnswerLaterWhileLaterInlineCallsAreServed) {
  TestServer server;
  FrameClient client(server.port());
  ASSERT_TRUE(client.SendRequest(1, kService, "InlineLater", "first"));
  ASSERT_TRUE(client.SendRequest(2, kService, "InlineLater", "second"));
  ASSERT_TRUE(server.service().later_started.WaitFor(2));
  for (uint64_t id = 3; id < 6; ++id) {
    ASSERT_TRUE(client.SendRequest(id, kService, "InlineEcho", "now " + std::to_string(id)));
    auto now = client.ReadReply();
    ASSERT_TRUE(now);
    EXPECT_EQ(now->request_id, id);
    EXPECT_EQ(now->value, "now " + std::to_string(id));
  }
  server.service().gate.Open();
  auto [first, second] = client.ReadTwoReplies(1, 2);
  ASSERT_TRUE(first);
  ASSERT_TRUE(second);
  EXPECT_EQ(first->value, "first");
  EXPECT_EQ(second->value, "second");
}

TEST(AsyncHandlerTest, ACompletionDroppedUnansweredIsAnsweredInternal) {
  TestServer server;
  FrameClient client(server.port());
  ASSERT_TRUE(client.SendRequest(1, kService, "Forget", "x"));
  auto reply = client.ReadReply();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->code, StatusCode::INTERNAL);
  EXPECT_NE(reply->error.find("without answering it"), std::string::npos) << reply->error;
}

// The answer given before the handler threw stands; the call is answered exactly once.
TEST(AsyncHandlerTest, AHandlerThatThrowsAfterAnsweringKeepsItsAnswer) {
  TestServer server;
  FrameClient client(server.port());
  ASSERT_TRUE(client.SendRequest(1, kService, "AnswerThenThrow", "kept"));
  ASSERT_TRUE(client.SendRequest(2, kService, "Echo", "next"));
  auto [answered, next] = client.ReadTwoReplies(1, 2);
  ASSERT_TRUE(answered);
  EXPECT_EQ(answered->code, StatusCode::OK) << answered->error;
  EXPECT_EQ(answered->value, "kept");
  ASSERT_TRUE(next);
  EXPECT_EQ(next->value, "next");
  EXPECT_FALSE(client.ReadReply(200ms)) << "no second answer to call 1";
}

// A completion destroyed while an exception the handler caught itself was in flight is
// answered INTERNAL when the handler returns, on the pool and inline, rather than left pending
// for ever.
TEST(AsyncHandlerTest, ACompletionDroppedInsideACaughtExceptionIsAnsweredInternal) {
  TestServer server;
  FrameClient client(server.port());
  ASSERT_TRUE(client.SendRequest(1, kService, "DropWhileCatching", "x"));
  ASSERT_TRUE(client.SendRequest(2, kService, "InlineDropWhileCatching", "y"));
  auto [pool, inline_call] = client.ReadTwoReplies(1, 2);
  ASSERT_TRUE(pool);
  ASSERT_TRUE(inline_call);
  EXPECT_EQ(pool->code, StatusCode::INTERNAL) << pool->error;
  EXPECT_EQ(inline_call->code, StatusCode::INTERNAL) << inline_call->error;
  EXPECT_NE(pool->error.find("DropWhileCatching"), std::string::npos) << pool->error;
}

// OVERLOADED and DRAINING tell a client that the call never started, so it is sent elsewhere
// whatever the method; a handler that ran cannot say that: it answers UNAVAILABLE, which only
// an idempotent method retries.
TEST(AsyncHandlerTest, AHandlerCannotClaimItsCallNeverStarted) {
  TestServer server;
  FrameClient client(server.port());
  ASSERT_TRUE(client.SendRequest(1, kService, "OverloadedAfterRunning", "x"));
  auto reply = client.ReadReply();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->code, StatusCode::UNAVAILABLE) << reply->error;
  EXPECT_NE(reply->error.find("too busy, says the handler"), std::string::npos) << reply->error;
  EXPECT_EQ(server.service().ran_then_overloaded.value(), 1);
}

// A stopping server waits for an asynchronous call still pending, and its answer gets out.
TEST(AsyncHandlerTest, StopWaitsForAPendingAsynchronousCall) {
  TestServer server(ServerOptions{.grace_period = 10s});
  FrameClient client(server.port());
  ASSERT_TRUE(client.SendRequest(1, kService, "InlineLater", "pending"));
  ASSERT_TRUE(server.service().later_started.WaitFor(1));
  std::thread stopper([&] { server.server().Stop(); });
  // Stopping has begun once its GOAWAY arrives; only then may the call finish.
  std::optional<codec::Frame> goaway = client.ReadFrame();
  ASSERT_TRUE(goaway);
  EXPECT_EQ(goaway->header.type, codec::MessageType::kGoAway);
  server.service().gate.Open();
  auto reply = client.ReadReply();
  stopper.join();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->request_id, 1u);
  EXPECT_EQ(reply->code, StatusCode::OK) << reply->error;
  EXPECT_EQ(reply->value, "pending");
}

// An asynchronous call that outlives the grace period is waited for by the server's
// destructor: its completion, on a thread the server does not own, still finds the connection
// and the IO contexts it answers through.
TEST(AsyncHandlerTest, DestroyingTheServerWaitsForAnAsynchronousCallPastTheGracePeriod) {
  TestService service;
  auto server =
      std::make_unique<Server>(ServerOptions{.listen = "127.0.0.1:0", .grace_period = 1ms});
  ASSERT_TRUE(server->AddService(&service).ok());
  ASSERT_TRUE(server->Start().ok());
  FrameClient client(server->port());
  ASSERT_TRUE(client.SendRequest(1, kService, "Later", "late"));
  ASSERT_TRUE(service.later_started.WaitFor(1));
  server->Stop();  // gives up waiting after the grace period: the call is still pending
  EXPECT_EQ(service.later_answered.value(), 0);
  std::thread opener([&] { service.gate.Open(); });
  server.reset();
  EXPECT_EQ(service.later_answered.value(), 1);
  opener.join();
}

}  // namespace
}  // namespace ferry::test
