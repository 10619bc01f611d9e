// server.limits: what hostile or broken peers can make a server hold is bounded by
// configuration. Memory is read from /proc/self/status, the server running in this process;
// not for sanitizer builds, whose allocators keep freed memory.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <google/protobuf/wrappers.pb.h>

#include "ferry/framework/metrics.h"
#include "ferry/rpc_meta.pb.h"
#include "frame_client.h"
#include "raw_http_client.h"
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
uint64_t ReceivedHttpBytes() {
  return stats::Server().received_bytes[stats::ServerMetrics::kHttp]->Value();
}

// What the server on `port` holds against max_buffered_bytes, as /metrics shows it.
double BufferedBytes(uint16_t port) {
  const std::string series = "ferry_server_buffered_bytes{port=\"" + std::to_string(port) + "\"}";
  std::istringstream text(metrics::RenderText(metrics::Metrics()));
  for (std::string line; std::getline(text, line);) {
    if (line.starts_with(series + " ")) return std::stod(line.substr(series.size() + 1));
  }
  ADD_FAILURE() << series << " not in /metrics";
  return 0;
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

// A loopback client that sends and never reads, with a receive buffer of 4 KiB, so that what
// the server answers stays with the server rather than in this side's socket.
class NonReadingClient {
 public:
  explicit NonReadingClient(uint16_t port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    const int size = 4096;
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
  }
  ~NonReadingClient() { ::close(fd_); }
  bool Send(std::string_view bytes) {
    if (!connected_) return false;
    while (!bytes.empty()) {
      const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }

 private:
  int fd_;
  bool connected_ = false;
};

// An answer as large as a /metrics page, from the IO thread.
HttpRoute PageRoute() {
  return {
      .method = "GET",
      .pattern = "/page",
      .handler = [](const HttpRequest&,
                    HttpReply reply) { reply({.status = 200, .body = std::string(20000, 'm')}); },
      .on_io_thread = true};
}

// Pipelined requests are served one at a time, each once the answers before it are written:
// clients that pipeline hundreds of requests in one read and never read make the server hold
// an answer or two each, not one per request.
TEST(ServerLimitsTest, PipelinedHttpRequestsOfClientsThatNeverReadHoldAnAnswerEach) {
  TestServer server(ServerOptions{}, {PageRoute()});
  constexpr int kClients = 50;
  constexpr int kRequests = 650;
  std::string requests;
  for (int i = 0; i < kRequests; ++i) requests += "GET /page HTTP/1.1\r\n\r\n";
  ASSERT_LT(requests.size(), 16u * 1024) << "the requests fit in one read";
  ResetPeakRss();
  const size_t rss_before = ProcStatusBytes("VmRSS");
  const uint64_t received_before = ReceivedHttpBytes();
  std::vector<std::unique_ptr<NonReadingClient>> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.push_back(std::make_unique<NonReadingClient>(server.port()));
    ASSERT_TRUE(clients.back()->Send(requests));
  }
  const uint64_t total = kClients * requests.size();
  ASSERT_TRUE(Eventually([&] { return ReceivedHttpBytes() - received_before >= total; }))
      << ReceivedHttpBytes() - received_before << " of " << total << " bytes read";
  // Answered on the one IO thread after every read before it was handled.
  http_test::RawHttpClient reader(server.port());
  ASSERT_TRUE(reader.Send(http_test::Request("GET", "/page")));
  const auto page = reader.Read();
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);

  // All answered at once: 650 MB. One answer, the next (begun under 16 KiB unwritten) and the
  // read buffer each: under 128 KiB.
  const double buffered = BufferedBytes(server.port());
  EXPECT_LT(buffered, kClients * 128.0 * 1024) << buffered << " bytes held";
  const size_t peak = ProcStatusBytes("VmHWM") - rss_before;
  EXPECT_LT(peak, 64u << 20) << "peak RSS grew by " << peak;
}

// A chunk's size line (its extensions) and the trailer are held to max_header_bytes, as the
// header is: a request may not make the server buffer them without end.
TEST(ServerLimitsTest, ChunkExtensionsAndTrailersPastTheHeaderLimitAre431AndClose) {
  ServerOptions options;
  options.http.request_timeout = 0ms;  // the limit answers, not a timeout
  TestServer server(options);
  const std::string head =
      "POST /ferry.test.TestService/Echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
      "Transfer-Encoding: chunked\r\n\r\n";
  for (const std::string& unbounded :
       {std::string("1;ext=") + std::string(64 * 1024, 'e'),
        std::string("3\r\n\"x\"\r\n0\r\nX-Trailer: ") + std::string(64 * 1024, 't')}) {
    SCOPED_TRACE(unbounded.substr(0, 12));
    const uint64_t received_before = ReceivedHttpBytes();
    http_test::RawHttpClient client(server.port());
    ASSERT_TRUE(client.Send(head + unbounded));
    const auto reply = client.Read();
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->status, 431);
    EXPECT_NE(reply->body.find("max_header_bytes"), std::string::npos) << reply->body;
    EXPECT_TRUE(client.WaitForClose());
    // Read no further than the limit and the read that passed it.
    EXPECT_LE(ReceivedHttpBytes() - received_before,
              head.size() + options.http.max_header_bytes + 2 * 16 * 1024);
  }
}

// HTTP bodies count against max_buffered_bytes as they arrive, as read buffers do: four bodies
// of 4 MiB cannot all be held within 8 MiB, and those that would take it further are closed.
TEST(ServerLimitsTest, HttpBodiesInProgressCountAgainstTheServersBuffers) {
  ServerOptions options;
  options.limits.max_buffered_bytes = 8u << 20;
  options.limits.max_queued_bytes = 8u << 20;
  options.http.max_body_bytes = 4u << 20;
  options.http.request_timeout = 0ms;
  TestServer server(options);
  const uint64_t full = LimitEvents(stats::ServerMetrics::kBuffersFull);
  constexpr size_t kBody = 4u << 20;
  std::vector<std::unique_ptr<http_test::RawHttpClient>> clients;
  for (int i = 0; i < 4; ++i) {
    clients.push_back(std::make_unique<http_test::RawHttpClient>(server.port()));
    http_test::RawHttpClient& client = *clients.back();
    bool open = client.Send(
        "POST /ferry.test.TestService/Echo HTTP/1.1\r\nHost: x\r\n"
        "Content-Type: application/json\r\nContent-Length: " +
        std::to_string(kBody) + "\r\n\r\n");
    // All of the body but its last byte: the request stays in progress.
    for (size_t sent = 0; open && sent < kBody - 1; sent += 64 * 1024) {
      open = client.Send(std::string(std::min<size_t>(64 * 1024, kBody - 1 - sent), ' '));
    }
  }
  ASSERT_TRUE(Eventually([&] {
    return LimitEvents(stats::ServerMetrics::kBuffersFull) >= full + 2;
  })) << LimitEvents(stats::ServerMetrics::kBuffersFull) - full
      << " closed";
  EXPECT_LT(BufferedBytes(server.port()), options.limits.max_buffered_bytes + kBody);
  // What they held is given back once they are gone.
  clients.clear();
  ASSERT_TRUE(Eventually([&] {
    FrameClient next(server.port());
    if (!next.SendRequest(1, kService, "Echo", "alive")) return false;
    const auto reply = next.ReadReply(1s);
    return reply && reply->code == StatusCode::OK;
  }));
}

// The calls waiting for a worker hold their request bodies: those count against
// max_buffered_bytes, and max_queued_bytes bounds them together, whatever the queue's capacity.
TEST(ServerLimitsTest, QueuedCallsAreBoundedByTheirBytesAndCountAgainstTheBuffers) {
  ServerOptions options;
  options.worker_threads = 1;
  options.limits.max_queued_bytes = 1u << 20;
  TestServer server(options);
  FrameClient client(server.port());
  ASSERT_TRUE(client.SendRequest(1, kService, "Block", ""));
  ASSERT_TRUE(server.service().blocked.WaitFor(1));
  const std::string body(400 * 1024, 'q');
  for (uint64_t id = 2; id <= 4; ++id) ASSERT_TRUE(client.SendRequest(id, kService, "Echo", body));
  // Two wait, 800 KiB; a third would take them past 1 MiB.
  const auto refused = client.ReadReply();
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->request_id, 4u);
  EXPECT_EQ(refused->code, StatusCode::OVERLOADED);
  EXPECT_NE(refused->error.find("server.limits.max_queued_bytes: 1048576"), std::string::npos)
      << refused->error;
  EXPECT_GE(BufferedBytes(server.port()), 2.0 * body.size());
  server.service().gate.Open();
  for (uint64_t id = 1; id <= 3; ++id) {
    const auto reply = client.ReadReply();
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->request_id, id);
    EXPECT_EQ(reply->code, StatusCode::OK) << reply->error;
  }
  EXPECT_TRUE(Eventually([&] { return BufferedBytes(server.port()) < body.size(); }))
      << BufferedBytes(server.port());
}

// A call answered 504 at the deadline its request gave goes on until its handler sees it was
// cancelled; the connection's next request waits for that, so a client cannot have one
// connection queue call after call with deadlines of a millisecond.
TEST(ServerLimitsTest, AnHttpCallPastItsDeadlineHoldsItsConnectionUntilItEnds) {
  ServerOptions options;
  options.worker_threads = 1;
  options.queue_capacity = 1;
  TestServer server(options);
  FrameClient blocker(server.port());
  ASSERT_TRUE(blocker.SendRequest(1, kService, "Block", ""));
  ASSERT_TRUE(server.service().blocked.WaitFor(1));
  http_test::RawHttpClient client(server.port());
  std::string pipelined;
  for (int i = 0; i < 5; ++i) {
    pipelined += http_test::Request("POST", "/ferry.test.TestService/Count", "\"c\"",
                                    "X-Ferry-Timeout-Ms: 1\r\n");
  }
  ASSERT_TRUE(client.Send(pipelined));
  const auto first = client.Read();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, 504);
  // Each queued in its turn: never one while the one before it still waits for the worker.
  server.service().gate.Open();
  for (int i = 1; i < 5; ++i) {
    const auto reply = client.Read();
    ASSERT_TRUE(reply) << "answer " << i;
    EXPECT_TRUE(reply->status == 200 || reply->status == 504)
        << reply->status << " " << reply->body;
  }
  const auto unblocked = blocker.ReadReply();
  ASSERT_TRUE(unblocked);
  EXPECT_EQ(unblocked->code, StatusCode::OK);
}

}  // namespace
}  // namespace ferry::test
