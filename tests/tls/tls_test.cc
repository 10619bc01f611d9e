// The binary protocol over TLS: server and client verification, mTLS identities, what is refused
// and how the refusal reads, and a graceful stop.
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "eventually.h"
#include "ferry/framework/app.h"
#include "ferry/framework/config.h"
#include "loopback_socket.h"
#include "tls_fixture.h"

namespace ferry::tls_test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// A refused call fails as soon as the handshake does, well before its own timeout.
ClientOptions Patient() { return ClientOptions{.default_timeout = 10s, .connect_timeout = 10s}; }

TEST_F(TlsFixture, CallsGoOverTlsVerifiedAgainstTheCa) {
  StartServer();
  auto proxy = Proxy(ClientTls());
  for (int i = 0; i < 3; ++i) {
    const Result<demo::EchoResponse> reply = proxy.Echo(EchoOf("hello"));
    ASSERT_TRUE(reply.ok()) << reply.status();
    EXPECT_EQ(reply->payload(), "|hello") << "no client certificate, no identity";
  }
  demo::DelayRequest large;
  large.set_payload(std::string(1 << 20, 'x'));  // many TLS records, both ways
  const Result<demo::EchoResponse> reply = proxy.Delay(large);
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(reply->payload(), large.payload());
}

TEST_F(TlsFixture, TheServerNameDefaultsToTheTargetsHostAndMayBeSet) {
  StartServer();
  EXPECT_TRUE(Proxy(ClientTls({.server_name = "localhost"})).Echo(EchoOf("a")).ok());
  const Result<demo::EchoResponse> reply =
      Proxy(ClientTls({.server_name = "example.com"}), Patient()).Echo(EchoOf("a"));
  EXPECT_EQ(reply.status().code(), StatusCode::UNAVAILABLE);
  EXPECT_NE(reply.status().message().find("not issued for 'example.com'"), std::string::npos)
      << reply.status();
}

TEST_F(TlsFixture, AClientTrustingAnotherCaRefusesTheServer) {
  StartServer();
  const auto start = Clock::now();
  const Result<demo::EchoResponse> reply =
      Proxy(ClientTls({.ca_file = certs_.other_ca()}), Patient()).Echo(EchoOf("a"));
  EXPECT_EQ(reply.status().code(), StatusCode::UNAVAILABLE);
  EXPECT_NE(reply.status().message().find("the server's certificate was refused: unable to get "
                                          "local issuer certificate"),
            std::string::npos)
      << reply.status();
  EXPECT_LT(Clock::now() - start, 5s) << "it waited for a timeout";
}

TEST_F(TlsFixture, VerifyFalseAcceptsAnyCertificate) {
  StartServer();
  const Result<demo::EchoResponse> reply =
      Proxy(ClientTls({.ca_file = certs_.other_ca(), .verify = false})).Echo(EchoOf("a"));
  EXPECT_TRUE(reply.ok()) << reply.status();
}

TEST_F(TlsFixture, MutualTlsShowsTheClientsCommonNameToHandlers) {
  StartServer(MutualTls());
  auto proxy =
      Proxy(ClientTls({.cert_file = certs_.client_cert(), .key_file = certs_.client_key()}));
  const Result<demo::EchoResponse> reply = proxy.Echo(EchoOf("x"));
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(reply->payload(), "ferry-test-client|x");
}

TEST_F(TlsFixture, PerCallerRateLimitsTellClientsApartByTheirVerifiedCertificate) {
  ServerOptions options;
  options.filters.push_back(
      FilterSpec::FromYaml("ratelimit", "{name: ratelimit, per_caller: {rate: 0.001, burst: 1}}"));
  StartServer({.ca_file = certs_.ca(), .client_cert = ServerTlsOptions::ClientCert::kOptional},
              std::move(options));
  auto known =
      Proxy(ClientTls({.cert_file = certs_.client_cert(), .key_file = certs_.client_key()}));
  ASSERT_TRUE(known.Echo(EchoOf("1")).ok());
  const Result<demo::EchoResponse> again = known.Echo(EchoOf("2"));
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), StatusCode::RESOURCE_EXHAUSTED) << again.status();
  EXPECT_NE(again.status().message().find("ferry-test-client"), std::string::npos)
      << again.status();
  // From the same address, but without a certificate: a bucket of its own, its address's.
  const Result<demo::EchoResponse> anonymous = Proxy(ClientTls()).Echo(EchoOf("3"));
  EXPECT_TRUE(anonymous.ok()) << anonymous.status();
}

TEST_F(TlsFixture, MutualTlsRefusesAClientWithoutACertificate) {
  StartServer(MutualTls());
  const double failures = TlsFailures("failed");
  const auto start = Clock::now();
  const Result<demo::EchoResponse> reply = Proxy(ClientTls(), Patient()).Echo(EchoOf("x"));
  EXPECT_EQ(reply.status().code(), StatusCode::UNAVAILABLE) << reply.status();
  EXPECT_NE(reply.status().message().find("certificate"), std::string::npos) << reply.status();
  EXPECT_LT(Clock::now() - start, 5s) << "it waited for a timeout";
  EXPECT_EQ(TlsFailuresOnceAtLeast("failed", failures + 1), failures + 1);
}

TEST_F(TlsFixture, MutualTlsRefusesAClientCertificateFromAnotherCa) {
  StartServer(MutualTls());
  const Result<demo::EchoResponse> reply = Proxy(ClientTls({.cert_file = certs_.other_client_cert(),
                                                            .key_file = certs_.other_client_key()}),
                                                 Patient())
                                               .Echo(EchoOf("x"));
  EXPECT_EQ(reply.status().code(), StatusCode::UNAVAILABLE) << reply.status();
  EXPECT_NE(reply.status().message().find("alert"), std::string::npos)
      << "the server's alert names why: " << reply.status();
}

TEST_F(TlsFixture, OptionalClientCertificatesLetBothKindsOfClientIn) {
  StartServer({.ca_file = certs_.ca(), .client_cert = ServerTlsOptions::ClientCert::kOptional});
  const Result<demo::EchoResponse> anonymous = Proxy(ClientTls()).Echo(EchoOf("x"));
  ASSERT_TRUE(anonymous.ok()) << anonymous.status();
  EXPECT_EQ(anonymous->payload(), "|x");
  const Result<demo::EchoResponse> known =
      Proxy(ClientTls({.cert_file = certs_.client_cert(), .key_file = certs_.client_key()}))
          .Echo(EchoOf("x"));
  ASSERT_TRUE(known.ok()) << known.status();
  EXPECT_EQ(known->payload(), "ferry-test-client|x");
}

TEST_F(TlsFixture, PlaintextIsRefusedWhenTlsIsOn) {
  StartServer();
  const double refused = TlsFailures("plaintext");
  const Result<demo::EchoResponse> reply = PlaintextProxy().Echo(EchoOf("x"));
  EXPECT_EQ(reply.status().code(), StatusCode::UNAVAILABLE) << reply.status();
  EXPECT_EQ(TlsFailuresOnceAtLeast("plaintext", refused + 1), refused + 1);
}

TEST_F(TlsFixture, AcceptPlaintextServesBothOnOnePort) {
  StartServer({.accept_plaintext = true});
  const Result<demo::EchoResponse> plain = PlaintextProxy().Echo(EchoOf("p"));
  EXPECT_TRUE(plain.ok()) << plain.status();
  const Result<demo::EchoResponse> tls = Proxy(ClientTls()).Echo(EchoOf("t"));
  EXPECT_TRUE(tls.ok()) << tls.status();
}

TEST_F(TlsFixture, AStalledHandshakeIsClosedAfterTheHandshakeTimeout) {
  StartServer({}, ServerOptions{.limits = {.handshake_timeout = 200ms}});
  const double timeouts = TlsFailures("timeout");
  const int fd = test::ConnectLoopback(server_->port());
  ASSERT_GE(fd, 0);
  const timeval bound{.tv_sec = 10, .tv_usec = 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &bound, sizeof(bound));
  const unsigned char record_start = 0x16;  // a ClientHello's first byte, and nothing more
  ASSERT_EQ(::write(fd, &record_start, 1), 1);
  const auto start = Clock::now();
  char byte = 0;
  EXPECT_EQ(::read(fd, &byte, 1), 0) << "the server closes the connection";
  const auto waited = Clock::now() - start;
  ::close(fd);
  EXPECT_GE(waited, 150ms);
  EXPECT_LT(waited, 5s);
  EXPECT_EQ(TlsFailuresOnceAtLeast("timeout", timeouts + 1), timeouts + 1);
}

// A connection that sent the first bytes of a ClientHello and nothing more, so that its
// handshake is in progress until the server gives up on it.
int StartHandshakeAndStall(uint16_t port) {
  const int fd = test::ConnectLoopback(port);
  if (fd < 0) return -1;
  const timeval bound{.tv_sec = 10, .tv_usec = 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &bound, sizeof(bound));
  const char record_start[] = {0x16, 0x03, 0x01};
  if (::write(fd, record_start, sizeof(record_start)) != sizeof(record_start)) {
    ::close(fd);
    return -1;
  }
  return fd;
}

TEST_F(TlsFixture, HandshakesPastMaxHandshakesAreRefusedAndEstablishedConnectionsGoOn) {
  StartServer({.handshake_threads = 1}, ServerOptions{.limits = {.max_handshakes = 1}});
  const uint16_t port = server_->port();
  auto established = Proxy(ClientTls(), Patient());
  ASSERT_TRUE(established.Echo(EchoOf("warm")).ok());
  EXPECT_EQ(HandshakesInProgress(port), 0);

  const int stalled = StartHandshakeAndStall(port);
  ASSERT_GE(stalled, 0);
  ASSERT_TRUE(testsupport::Eventually([&] { return HandshakesInProgress(port) == 1; }));
  const double busy = TlsFailures("busy");
  const int refused = StartHandshakeAndStall(port);
  ASSERT_GE(refused, 0);
  char byte = 0;
  EXPECT_EQ(::read(refused, &byte, 1), 0) << "the server closes the connection";
  ::close(refused);
  EXPECT_EQ(TlsFailuresOnceAtLeast("busy", busy + 1), busy + 1);
  // The slot is the only thing a stalled handshake holds: what is established is served.
  const Result<demo::EchoResponse> during = established.Echo(EchoOf("during"));
  ASSERT_TRUE(during.ok()) << during.status();
  EXPECT_EQ(during->payload(), "|during");

  ::close(stalled);
  ASSERT_TRUE(testsupport::Eventually([&] { return HandshakesInProgress(port) == 0; }));
  const Result<demo::EchoResponse> fresh = Proxy(ClientTls(), Patient()).Echo(EchoOf("fresh"));
  ASSERT_TRUE(fresh.ok()) << fresh.status();
  EXPECT_EQ(fresh->payload(), "|fresh");
}

TEST_F(TlsFixture, AGracefulStopLetsATlsCallInFlightFinish) {
  StartServer({}, ServerOptions{.grace_period = 5s, .drain_delay = 0ms});
  auto proxy = Proxy(ClientTls(), Patient());
  ASSERT_TRUE(proxy.Echo(EchoOf("warm")).ok());
  demo::DelayRequest slow;
  slow.set_sleep_ms(300);
  slow.set_payload("finished");
  auto pending = proxy.DelayAsync(slow);
  ASSERT_TRUE(service_.WaitDelayStarted());
  const auto start = Clock::now();
  server_->Stop();
  EXPECT_LT(Clock::now() - start, 4s) << "the client acknowledged GOAWAY, over TLS";
  const Result<demo::EchoResponse> reply = pending.get();
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(reply->payload(), "finished");
  const Result<demo::EchoResponse> after = proxy.Echo(EchoOf("late"));
  EXPECT_FALSE(after.ok());
}

// The YAML way, with providers found through a registry (static://, no server to run).
TEST_F(TlsFixture, AConfiguredClientReachesProvidersFoundThroughTheRegistry) {
  StartServer(MutualTls());
  Config config;
  const std::string yaml =
      "clients:\n  echo:\n    service: ferry.demo.EchoService\n"
      "    registry: static://" +
      target() + "\n    tls:\n      ca_file: " + certs_.ca() +
      "\n      cert_file: " + certs_.client_cert() + "\n      key_file: " + certs_.client_key() +
      "\n";
  const Status parsed = ParseConfig(yaml, "caller.yaml", &config);
  ASSERT_TRUE(parsed.ok()) << parsed;
  App app("caller", std::move(config));
  const Result<demo::EchoResponse> reply =
      app.Client<demo::EchoServiceProxy>("echo").Echo(EchoOf("found"));
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(reply->payload(), "ferry-test-client|found");
}

}  // namespace
}  // namespace ferry::tls_test
