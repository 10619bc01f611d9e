#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

#include "frame_client.h"
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

TEST(ServerShutdownTest, StopLetsInFlightCallsFinishAndRefusesNewWork) {
  TestServer server(ServerOptions{.grace_period = 10s});
  const uint16_t port = server.port();
  FrameClient client(port);
  ASSERT_TRUE(client.SendRequest(1, kService, "Block", "slow"));
  ASSERT_TRUE(server.service().blocked.WaitFor(1));

  auto stopped = std::async(std::launch::async, [&] { server.server().Stop(); });
  EXPECT_TRUE(BecomesRefused(port));
  // Existing connections stay open for the answers but take no new work.
  ASSERT_TRUE(client.SendRequest(2, kService, "Echo", "late"));
  auto refused = client.ReadReply();
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->request_id, 2u);
  EXPECT_EQ(refused->code, StatusCode::UNAVAILABLE);
  EXPECT_EQ(refused->error, "server is shutting down");
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
