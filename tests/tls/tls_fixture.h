#pragma once

#include <gtest/gtest.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>

#include "echo.ferry.h"
#include "ferry/framework/channel.h"
#include "ferry/framework/server.h"
#include "test_certificates.h"

namespace ferry::tls_test {

// Echo answers "<the caller's peer_identity()>|<payload>"; Delay says it started, then sleeps
// request.sleep_ms and echoes the payload.
class IdentityEchoService final : public demo::EchoServiceBase {
 public:
  Status Echo(ServerContext& context, const demo::EchoRequest& request,
              demo::EchoResponse* response) override;
  Status Delay(ServerContext& context, const demo::DelayRequest& request,
               demo::EchoResponse* response) override;
  // False unless a Delay started within 10 s.
  bool WaitDelayStarted();

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool delay_started_ = false;
};

// A server of IdentityEchoService on 127.0.0.1 with the test PKI's server certificate, and
// proxies to it over TLS trusting the test CA.
class TlsFixture : public ::testing::Test {
 protected:
  // The server's certificate and key, plus `tls`'s other settings. Besides the service, it
  // answers GET /whoami with "you are '<the caller's peer_identity()>'".
  void StartServer(ServerTlsOptions tls = {}, ServerOptions options = {});
  ServerTlsOptions MutualTls() const;
  // Trusts the test CA unless `tls` names a CA of its own.
  ClientTlsOptions ClientTls(ClientTlsOptions tls = {}) const;
  std::string target() const { return "127.0.0.1:" + std::to_string(server_->port()); }
  demo::EchoServiceProxy Proxy(ClientTlsOptions tls, ClientOptions options = {});
  demo::EchoServiceProxy PlaintextProxy();
  void TearDown() override;

  testsupport::TestCertificates certs_;
  IdentityEchoService service_;
  std::unique_ptr<Server> server_;
};

demo::EchoRequest EchoOf(std::string payload);
// ferry_server_tls_handshake_failures_total{reason="<reason>"}, in this process.
double TlsFailures(const std::string& reason);
// TlsFailures(reason) once it reached `count`, or after 5 s: a client may see its handshake
// fail before the server has counted it (TLS 1.3 clients finish first, then hear the alert).
double TlsFailuresOnceAtLeast(const std::string& reason, double count);
// ferry_server_tls_handshakes_in_progress of the server on `port`; -1 when it has none.
double HandshakesInProgress(uint16_t port);

}  // namespace ferry::tls_test
