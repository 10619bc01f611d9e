// server.limits: what hostile or broken peers can make a server hold is bounded by
// configuration. Memory is read from /proc/self/status, the server running in this process;
// not for sanitizer builds, whose allocators keep freed memory.
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <google/protobuf/wrappers.pb.h>

#include "ferry/rpc_meta.pb.h"
#include "frame_client.h"
#include "stats/framework_metrics.h"
#include "test_service.h"

namespace ferry::test {
namespace {

using namespace std::chrono_literals;
constexpr std::string_view kService = TestService::kName;

// Makes VmHWM start again from the current RSS, so that a peak is this test's own even when
// the tests share a process.
void ResetPeakRss() { std::ofstream("/proc/self/clear_refs") << "5"; }

// VmRSS or VmHWM of this process, in bytes.
size_t ProcStatusBytes(const std::string& key) {
  std::ifstream status("/proc/self/status");
  std::string name;
  while (status >> name) {
    if (name == key + ":") {
      size_t kib = 0;
      status >> kib;
      return kib * 1024;
    }
    status.ignore(1 << 16, '\n');
  }
  ADD_FAILURE() << key << " not in /proc/self/status";
  return 0;
}

std::string HeaderBytes(const codec::FrameHeader& header) {
  const auto bytes = codec::WriteHeader(header);
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

uint64_t ReceivedBinaryBytes() {
  return stats::Server().received_bytes[stats::ServerMetrics::kBinary]->Value();
}
uint64_t LimitEvents(stats::ServerMetrics::LimitEvent event) {
  return stats::Server().limit_events[event]->Value();
}

// Polls a condition the server reaches on its own threads, for at most `wait`.
template <class Condition>
bool Eventually(Condition condition, std::chrono::milliseconds wait = FrameClient::kWait) {
  const auto deadline = std::chrono::steady_clock::now() + wait;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

void ExpectServes(FrameClient& client, uint64_t id) {
  ASSERT_TRUE(client.SendRequest(id, kService, "Echo", "alive"));
  const auto reply = client.ReadReply();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->code, StatusCode::OK) << reply->error;
  EXPECT_EQ(reply->value, "alive");
}

TEST(ServerLimitsTest, HeadersClaimingHugeFramesCostWhatReallyArrived) {
  ServerOptions options;
  options.max_frame_bytes = 16u << 20;
  TestServer server(options);
  constexpr int kConnections = 200;
  constexpr size_t kTrickle = 64 * 1024;  // of each frame's 16 MiB, this much is sent
  codec::FrameHeader header;
  header.body_length = options.max_frame_bytes - codec::kHeaderSize;

  const size_t rss_before = ProcStatusBytes("VmRSS");
  const uint64_t received_before = ReceivedBinaryBytes();
  std::vector<std::unique_ptr<FrameClient>> clients;
  for (int i = 0; i < kConnections; ++i) {
    clients.push_back(std::make_unique<FrameClient>(server.port()));
    ASSERT_TRUE(clients.back()->SendBytes(HeaderBytes(header)));
  }
  // In pieces, as a slow sender's bytes come.
  for (size_t sent = 0; sent < kTrickle; sent += 4096) {
    for (auto& client : clients) ASSERT_TRUE(client->SendBytes(std::string(4096, 'x')));
  }
  const uint64_t total = kConnections * (codec::kHeaderSize + kTrickle);
  ASSERT_TRUE(Eventually([&] { return ReceivedBinaryBytes() - received_before >= total; }))
      << ReceivedBinaryBytes() - received_before << " of " << total << " bytes read";

  // Allocating each claimed frame would take 3.2 GiB; what arrived is 12.8 MiB.
  const size_t growth = ProcStatusBytes("VmRSS") - rss_before;
  EXPECT_LT(growth, 4 * total) << "RSS grew by " << growth << " for " << total << " bytes";
  FrameClient fresh(server.port());
  ExpectServes(fresh, 1);
}

TEST(ServerLimitsTest, AFrameThatStallsIsCutOffButAnIdleConnectionStays) {
  ServerOptions options;
  options.limits.frame_timeout = 200ms;
  TestServer server(options);
  FrameClient idle(server.port());
  ExpectServes(idle, 1);
  FrameClient stalled(server.port());
  codec::FrameHeader header;
  header.body_length = 1000;
  ASSERT_TRUE(stalled.SendBytes(HeaderBytes(header) + std::string(10, 'x')));
  const uint64_t timeouts = LimitEvents(stats::ServerMetrics::kFrameTimeout);
  EXPECT_TRUE(stalled.WaitForClose());
  EXPECT_EQ(LimitEvents(stats::ServerMetrics::kFrameTimeout), timeouts + 1);
  // Longer than the frame timeout has passed: a connection between frames is not affected.
  ExpectServes(idle, 2);
}

TEST(ServerLimitsTest, AClientThatNeverReadsIsClosedAtTheHardLimitAndOthersAreServed) {
  ServerOptions options;
  options.max_frame_bytes = 4u << 20;
  options.limits.outbound_high_water_bytes = 1u << 20;
  options.limits.max_outbound_bytes = 8u << 20;
  TestServer server(options);
  ResetPeakRss();
  const size_t rss_before = ProcStatusBytes("VmRSS");
  const uint64_t overflows = LimitEvents(stats::ServerMetrics::kOutboundOverflow);

  // Others call throughout: none of their calls may fail.
  std::atomic<bool> flooding{true};
  std::atomic<int> served{0};
  std::jthread bystander([&] {
    FrameClient client(server.port());
    for (uint64_t id = 1; flooding.load() || served.load() < 10; ++id) {
      ExpectServes(client, id);
      served.fetch_add(1);
      if (id > 100000) break;
    }
  });

  // 100 KiB answers to 60-byte requests, never read: 2 GiB of answers if all were kept.
  FrameClient flooder(server.port());
  std::string requests;
  for (uint64_t id = 1; id <= 20000; ++id) {
    FrameClient::AppendRequest(id, kService, "Repeat", "102400", &requests);
  }
  bool closed_while_sending = false;
  for (size_t at = 0; at < requests.size(); at += 64 * 1024) {
    if (!flooder.SendBytes(std::string_view(requests).substr(at, 64 * 1024))) {
      closed_while_sending = true;
      break;
    }
  }
  EXPECT_TRUE(closed_while_sending || flooder.WaitForClose());
  EXPECT_EQ(LimitEvents(stats::ServerMetrics::kOutboundOverflow), overflows + 1);
  flooding = false;
  bystander.join();
  EXPECT_GE(served.load(), 10);
  // The peak: the hard limit, the answer being written and the read batch's last answer.
  const size_t peak = ProcStatusBytes("VmHWM") - rss_before;
  EXPECT_LT(peak, 3 * options.limits.max_outbound_bytes) << "peak RSS grew by " << peak;
}

TEST(ServerLimitsTest, AClientReadingLateIsPausedNotDroppedAndGetsEveryAnswer) {
  ServerOptions options;
  options.max_frame_bytes = 4u << 20;
  options.limits.outbound_high_water_bytes = 1u << 20;
  options.limits.max_outbound_bytes = 16u << 20;
  TestServer server(options);
  const uint64_t pauses = LimitEvents(stats::ServerMetrics::kReadPaused);
  FrameClient client(server.port());
  // Twenty 512 KiB answers in two rounds: each round alone is past the high-water mark.
  constexpr int kRequests = 20;
  for (int round = 0; round < 2; ++round) {
    std::string requests;
    for (int i = 1; i <= kRequests / 2; ++i) {
      FrameClient::AppendRequest(round * 100 + i, kService, "Repeat", "524288", &requests);
    }
    ASSERT_TRUE(client.SendBytes(requests));
    if (round == 0) {
      ASSERT_TRUE(
          Eventually([&] { return LimitEvents(stats::ServerMetrics::kReadPaused) > pauses; }));
    }
  }
  for (int i = 0; i < kRequests; ++i) {
    const auto reply = client.ReadReply();
    ASSERT_TRUE(reply) << "answer " << i;
    EXPECT_EQ(reply->code, StatusCode::OK) << reply->error;
    EXPECT_EQ(reply->value.size(), 524288u);
  }
}

TEST(ServerLimitsTest, ConnectionsPastTheLimitsAreRefusedUntilOthersClose) {
  ServerOptions options;
  options.limits.max_connections = 4;
  options.limits.max_connections_per_peer = 2;  // every test client is 127.0.0.1
  TestServer server(options);
  auto first = std::make_unique<FrameClient>(server.port());
  FrameClient second(server.port());
  ExpectServes(*first, 1);
  ExpectServes(second, 1);
  const uint64_t refused = LimitEvents(stats::ServerMetrics::kConnectionRefused);
  FrameClient third(server.port());
  EXPECT_TRUE(third.WaitForClose());
  EXPECT_EQ(LimitEvents(stats::ServerMetrics::kConnectionRefused), refused + 1);
  first.reset();
  // The server learns of the close when it reads the end of the stream.
  ASSERT_TRUE(Eventually([&] {
    FrameClient next(server.port());
    if (!next.SendRequest(2, kService, "Echo", "alive")) return false;
    const auto reply = next.ReadReply(1s);
    return reply && reply->code == StatusCode::OK;
  }));
}

TEST(ServerLimitsTest, AReadBufferThatMustGrowPastTheServersBudgetClosesItsConnection) {
  ServerOptions options;
  options.max_frame_bytes = 4u << 20;
  options.limits.max_outbound_bytes = 4u << 20;
  options.limits.outbound_high_water_bytes = 1u << 20;
  options.limits.max_buffered_bytes = 1u << 20;
  TestServer server(options);
  FrameClient bystander(server.port());
  ExpectServes(bystander, 1);
  const uint64_t full = LimitEvents(stats::ServerMetrics::kBuffersFull);
  FrameClient big(server.port());
  codec::FrameHeader header;
  header.body_length = 3u << 20;
  ASSERT_TRUE(big.SendBytes(HeaderBytes(header)));
  bool closed_while_sending = false;
  for (int i = 0; i < 48 && !closed_while_sending; ++i) {
    closed_while_sending = !big.SendBytes(std::string(64 * 1024, 'x'));
  }
  EXPECT_TRUE(closed_while_sending || big.WaitForClose());
  EXPECT_EQ(LimitEvents(stats::ServerMetrics::kBuffersFull), full + 1);
  // What it held was given back: the others, and new connections, are served.
  ExpectServes(bystander, 2);
  FrameClient fresh(server.port());
  ExpectServes(fresh, 1);
}

// A request for an answer of `size` bytes from a client that reads frames of at most
// `max_response_bytes`.
std::string RepeatRequest(uint64_t id, size_t size, uint64_t max_response_bytes) {
  wire::RpcMeta meta;
  meta.set_service(std::string(kService));
  meta.set_method("Repeat");
  meta.set_max_response_bytes(max_response_bytes);
  google::protobuf::StringValue body;
  body.set_value(std::to_string(size));
  codec::FrameHeader header;
  header.request_id = id;
  std::string frame;
  EXPECT_TRUE(codec::AppendFrame(header, &meta, &body, codec::BodyOptions{}, &frame).ok());
  return frame;
}

TEST(ServerLimitsTest, AnAnswerLargerThanTheClientReadsFailsThatCallAlone) {
  TestServer server;
  FrameClient client(server.port());
  ASSERT_TRUE(client.SendBytes(RepeatRequest(1, 100000, 65536)));
  const auto refused = client.ReadReply();
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->code, StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(refused->error.find("exceeds the caller's max_frame_bytes (65536)"), std::string::npos)
      << refused->error;
  // The connection goes on, and an answer that fits comes whole.
  ASSERT_TRUE(client.SendBytes(RepeatRequest(2, 60000, 65536)));
  const auto fits = client.ReadReply();
  ASSERT_TRUE(fits);
  EXPECT_EQ(fits->code, StatusCode::OK) << fits->error;
  EXPECT_EQ(fits->value.size(), 60000u);
}

}  // namespace
}  // namespace ferry::test
