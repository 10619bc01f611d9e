// What a connection may hold before it is any use: server.limits.max_connections_per_peer
// counts peers by network (peer_prefix_v4/v6), and first_byte_timeout_ms closes connections
// that never say anything. The TLS handshake slots are tested in tests/tls.
#include <gtest/gtest.h>

#include <boost/asio/ip/address.hpp>
#include <chrono>
#include <memory>
#include <vector>

#include "frame_client.h"
#include "server/peer_address.h"
#include "stats/framework_metrics.h"
#include "test_service.h"

namespace ferry::test {
namespace {

using namespace std::chrono_literals;
using boost::asio::ip::make_address;
using server::PeerNetworkOf;

uint64_t LimitEvents(stats::ServerMetrics::LimitEvent event) {
  return stats::Server().limit_events[event]->Value();
}

TEST(PeerNetworkTest, NamesTheNetworkOfThePrefixOrTheAddressWhenItIsAllOfIt) {
  EXPECT_EQ(PeerNetworkOf(make_address("10.1.2.3"), 32, 64), "10.1.2.3");
  EXPECT_EQ(PeerNetworkOf(make_address("10.1.2.3"), 24, 64), "10.1.2.0/24");
  EXPECT_EQ(PeerNetworkOf(make_address("10.1.2.3"), 1, 64), "0.0.0.0/1");
  EXPECT_EQ(PeerNetworkOf(make_address("200.1.2.3"), 1, 64), "128.0.0.0/1");
  EXPECT_EQ(PeerNetworkOf(make_address("2001:db8:1:2:3:4:5:6"), 32, 64), "[2001:db8:1:2::]/64");
  EXPECT_EQ(PeerNetworkOf(make_address("2001:db8:1:2:3:4:5:6"), 32, 52), "[2001:db8:1::]/52");
  EXPECT_EQ(PeerNetworkOf(make_address("::1"), 32, 128), "[::1]");
  // A v4 client of a dual-stack socket is counted as the v4 client it is.
  EXPECT_EQ(PeerNetworkOf(make_address("::ffff:10.1.2.3"), 24, 64), "10.1.2.0/24");
  EXPECT_EQ(PeerNetworkOf(make_address("::ffff:10.1.2.3"), 32, 64), "10.1.2.3");
  EXPECT_EQ(PeerNetworkOf(boost::asio::ip::address(), 32, 64), "unknown peer");
}

TEST(ConnectionSlotsTest, PeersOfOneNetworkShareTheirSlotsAndOtherNetworksHaveTheirOwn) {
  ServerOptions options;
  options.limits.max_connections_per_peer = 2;
  options.limits.peer_prefix_v4 = 24;
  TestServer server(options);
  FrameClient first(server.port(), "127.0.0.2");
  FrameClient second(server.port(), "127.0.0.3");
  ExpectServes(first, 1);
  ExpectServes(second, 1);
  const uint64_t refused = LimitEvents(stats::ServerMetrics::kConnectionRefused);
  // A third address of 127.0.0.0/24 is the same peer.
  FrameClient third(server.port(), "127.0.0.4");
  EXPECT_TRUE(third.WaitForClose());
  EXPECT_EQ(LimitEvents(stats::ServerMetrics::kConnectionRefused), refused + 1);
  FrameClient elsewhere(server.port(), "127.0.1.5");
  ExpectServes(elsewhere, 1);
}

TEST(ConnectionSlotsTest, ByDefaultEachAddressIsAPeerOfItsOwn) {
  ServerOptions options;
  options.limits.max_connections_per_peer = 1;
  TestServer server(options);
  std::vector<std::unique_ptr<FrameClient>> clients;
  for (const char* from : {"127.0.0.2", "127.0.0.3", "127.0.0.4"}) {
    clients.push_back(std::make_unique<FrameClient>(server.port(), from));
    ExpectServes(*clients.back(), 1);
  }
  const uint64_t refused = LimitEvents(stats::ServerMetrics::kConnectionRefused);
  FrameClient again(server.port(), "127.0.0.3");
  EXPECT_TRUE(again.WaitForClose());
  EXPECT_EQ(LimitEvents(stats::ServerMetrics::kConnectionRefused), refused + 1);
}

TEST(ConnectionSlotsTest, AConnectionThatSaysNothingIsClosedButAQuietOneThatSpokeStays) {
  ServerOptions options;
  options.limits.first_byte_timeout = 200ms;
  TestServer server(options);
  FrameClient spoke(server.port());
  ExpectServes(spoke, 1);
  const uint64_t timeouts = LimitEvents(stats::ServerMetrics::kFirstByteTimeout);
  FrameClient silent(server.port());
  EXPECT_TRUE(silent.WaitForClose());
  EXPECT_EQ(LimitEvents(stats::ServerMetrics::kFirstByteTimeout), timeouts + 1);
  // Longer than the timeout has passed since `spoke` last sent anything.
  ExpectServes(spoke, 2);
}

TEST(ConnectionSlotsTest, WithoutAFirstByteTimeoutASilentConnectionStaysOpen) {
  ServerOptions options;
  options.limits.first_byte_timeout = 0ms;
  options.limits.frame_timeout = 100ms;
  TestServer server(options);
  FrameClient silent(server.port());
  // Nothing closes it: not the frame timeout, which starts with a frame.
  EXPECT_FALSE(silent.WaitForClose(500ms));
  ExpectServes(silent, 1);
}

}  // namespace
}  // namespace ferry::test
