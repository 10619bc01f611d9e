#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <memory>
#include <thread>

#include "frame_client.h"
#include "log_capture.h"
#include "test_service.h"

namespace ferry::test {
namespace {

using namespace std::chrono_literals;
constexpr std::string_view kService = TestService::kName;

// Polls, bounded, until nothing accepts connections on `port` any more.
bool BecomesRefused(uint16_t port) {
  for (int i = 0; i < 500; ++i) {
    if (ConnectionRefused(port)) return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

// Reads frames until the server's GOAWAY, answering nothing else.
bool ReadsGoAway(FrameClient& client) {
  for (int frames = 0; frames < 16; ++frames) {
    std::optional<codec::Frame> frame = client.ReadFrame();
    if (!frame) return false;
    if (frame->header.type == codec::MessageType::kGoAway) {
      return (frame->header.flags & codec::flags::kGoAwayAck) == 0;
    }
  }
  return false;
}

bool SendGoAwayAck(FrameClient& client) {
  codec::FrameHeader ack;
  ack.type = codec::MessageType::kGoAway;
  ack.flags = codec::flags::kGoAwayAck;
  return client.SendFrame(ack, "", "");
}

// A client that knows GOAWAY: what it sent before its acknowledgement is served, and the call
// in flight finishes; a request after the acknowledgement breaks the protocol and is refused as
// DRAINING, not run.
TEST(ServerShutdownTest, StopSendsGoAwayAndServesWhatCameBeforeTheAcknowledgement) {
  TestServer server(ServerOptions{.grace_period = 10s});
  const uint16_t port = server.port();
  FrameClient client(port);
  ASSERT_TRUE(client.SendRequest(1, kService, "Block", "slow"));
  ASSERT_TRUE(server.service().blocked.WaitFor(1));

  auto stopped = std::async(std::launch::async, [&] { server.server().Stop(); });
  ASSERT_TRUE(ReadsGoAway(client));
  EXPECT_TRUE(BecomesRefused(port)) << "no new connections once draining";
  // Sent after the GOAWAY arrived but before the acknowledgement: still served.
  ASSERT_TRUE(client.SendRequest(2, kService, "Echo", "before the ack"));
  auto before = client.ReadReply();
  ASSERT_TRUE(before);
  EXPECT_EQ(before->request_id, 2u);
  EXPECT_EQ(before->code, StatusCode::OK) << before->error;
  ASSERT_TRUE(SendGoAwayAck(client));
  ASSERT_TRUE(client.SendRequest(3, kService, "Count", "after the ack"));
  auto after = client.ReadReply();
  ASSERT_TRUE(after);
  EXPECT_EQ(after->request_id, 3u);
  EXPECT_EQ(after->code, StatusCode::DRAINING) << after->error;
  EXPECT_EQ(server.service().counted.value(), 0) << "a refused request never runs";
  EXPECT_EQ(stopped.wait_for(0s), std::future_status::timeout);

  server.service().gate.Open();
  auto slow = client.ReadReply();
  ASSERT_TRUE(slow);
  EXPECT_EQ(slow->request_id, 1u);
  EXPECT_EQ(slow->code, StatusCode::OK) << slow->error;
  EXPECT_EQ(slow->value, "slow");
  ASSERT_EQ(stopped.wait_for(FrameClient::kWait), std::future_status::ready);
  EXPECT_TRUE(client.WaitForClose());
  server.server().Wait();  // returns at once: already stopped
}

// A client older than GOAWAY never acknowledges it: its requests are served while the server
// waits for an acknowledgement, and refused as DRAINING once it gives up waiting.
TEST(ServerShutdownTest, AClientThatNeverAcknowledgesIsRefusedOnceTheServerStopsWaiting) {
  TestServer server(ServerOptions{.grace_period = 10s});
  FrameClient client(server.port());
  ASSERT_TRUE(client.SendRequest(1, kService, "Block", "slow"));
  ASSERT_TRUE(server.service().blocked.WaitFor(1));
  auto stopped = std::async(std::launch::async, [&] { server.server().Stop(); });
  ASSERT_TRUE(ReadsGoAway(client));
  std::optional<Reply> refused;
  for (uint64_t id = 2; id < 2000 && !refused; ++id) {
    ASSERT_TRUE(client.SendRequest(id, kService, "Count", "x"));
    auto reply = client.ReadReply();
    ASSERT_TRUE(reply);
    ASSERT_EQ(reply->request_id, id);
    if (reply->code == StatusCode::DRAINING) {
      refused = reply;
    } else {
      ASSERT_EQ(reply->code, StatusCode::OK) << reply->error;
      std::this_thread::sleep_for(5ms);  // a steady trickle of work, bounded by the count
    }
  }
  ASSERT_TRUE(refused) << "the server never stopped taking new work";
  EXPECT_NE(refused->error.find("did not run the call"), std::string::npos) << refused->error;
  server.service().gate.Open();
  auto slow = client.ReadReply();
  ASSERT_TRUE(slow);
  EXPECT_EQ(slow->code, StatusCode::OK) << slow->error;
  ASSERT_EQ(stopped.wait_for(FrameClient::kWait), std::future_status::ready);
}

// A client that hangs up instead of acknowledging GOAWAY, while its call runs, has gone away as
// surely as one that acknowledged: Stop() does not wait out the acknowledgement's time for it.
TEST(ServerShutdownTest, AClientThatHangsUpWithACallInFlightHasGoneAway) {
  testsupport::LogCapture log;
  TestServer server(ServerOptions{.grace_period = 10s});
  auto client = std::make_unique<FrameClient>(server.port());
  ASSERT_TRUE(client->SendRequest(1, kService, "Block", "slow"));
  ASSERT_TRUE(server.service().blocked.WaitFor(1));
  auto stopped = std::async(std::launch::async, [&] { server.server().Stop(); });
  ASSERT_TRUE(ReadsGoAway(*client));
  client.reset();
  ASSERT_TRUE(log.WaitFor("ferry server: draining:", FrameClient::kWait));
  EXPECT_EQ(log.Messages("draining: every client acknowledged GOAWAY or hung up").size(), 1u)
      << log.Messages("draining:").front();
  server.service().gate.Open();
  ASSERT_EQ(stopped.wait_for(FrameClient::kWait), std::future_status::ready);
}

TEST(ServerShutdownTest, StopReturnsAfterTheGracePeriodWhenACallRunsLonger) {
  TestServer server(ServerOptions{.grace_period = 100ms});
  FrameClient client(server.port());
  ASSERT_TRUE(client.SendRequest(1, kService, "Block", ""));
  ASSERT_TRUE(server.service().blocked.WaitFor(1));
  auto stopped = std::async(std::launch::async, [&] { server.server().Stop(); });
  // The handler stays blocked until after Stop() has returned.
  ASSERT_EQ(stopped.wait_for(FrameClient::kWait), std::future_status::ready);
  EXPECT_TRUE(client.WaitForClose());
  server.service().gate.Open();  // the server's destructor then waits for the handler
}

TEST(ServerShutdownTest, WaitReturnsOnceAnotherThreadStops) {
  TestServer server;
  auto waiting = std::async(std::launch::async, [&] { server.server().Wait(); });
  EXPECT_EQ(waiting.wait_for(50ms), std::future_status::timeout);
  server.server().Stop();
  EXPECT_EQ(waiting.wait_for(FrameClient::kWait), std::future_status::ready);
  server.server().Stop();  // a second Stop is harmless
}

TEST(ServerShutdownTest, StopBeforeStartAndDestructionWithoutStopAreSafe) {
  Server never_started(ServerOptions{});
  never_started.Stop();
  never_started.Wait();
  {
    TestServer running;
    FrameClient client(running.port());
    ASSERT_TRUE(client.SendRequest(1, kService, "Echo", "x"));
    ASSERT_TRUE(client.ReadReply());
  }  // destroyed while the client is still connected
}

}  // namespace
}  // namespace ferry::test
