#include "tls_fixture.h"

#include <array>
#include <chrono>
#include <cstdio>
#include <thread>

#include "ferry/framework/metrics/registry.h"
#include "ferry/framework/metrics/text_format.h"

namespace ferry::tls_test {

Status IdentityEchoService::Echo(ServerContext& context, const demo::EchoRequest& request,
                                 demo::EchoResponse* response) {
  response->set_payload(context.peer_identity() + "|" + request.payload());
  return Status::Ok();
}

Status IdentityEchoService::Delay(ServerContext&, const demo::DelayRequest& request,
                                  demo::EchoResponse* response) {
  {
    std::lock_guard lock(mu_);
    delay_started_ = true;
  }
  cv_.notify_all();
  std::this_thread::sleep_for(std::chrono::milliseconds(request.sleep_ms()));
  response->set_payload(request.payload());
  return Status::Ok();
}

bool IdentityEchoService::WaitDelayStarted() {
  std::unique_lock lock(mu_);
  return cv_.wait_for(lock, std::chrono::seconds(10), [&] { return delay_started_; });
}

void TlsFixture::StartServer(ServerTlsOptions tls, ServerOptions options) {
  ASSERT_TRUE(certs_.ok());
  tls.cert_file = certs_.server_cert();
  tls.key_file = certs_.server_key();
  options.listen = "127.0.0.1:0";
  options.tls = std::move(tls);
  server_ = std::make_unique<Server>(std::move(options));
  ASSERT_TRUE(server_->AddService(&service_).ok());
  ASSERT_TRUE(server_
                  ->AddHttpRoute({.method = "GET",
                                  .pattern = "/whoami",
                                  .handler =
                                      [](const HttpRequest& request, HttpReply reply) {
                                        reply(HttpResponse{
                                            .body = "you are '" +
                                                    std::string(request.peer_identity()) + "'"});
                                      }})
                  .ok());
  const Status started = server_->Start();
  ASSERT_TRUE(started.ok()) << started;
}

ServerTlsOptions TlsFixture::MutualTls() const {
  return ServerTlsOptions{.ca_file = certs_.ca(),
                          .client_cert = ServerTlsOptions::ClientCert::kRequire};
}

ClientTlsOptions TlsFixture::ClientTls(ClientTlsOptions tls) const {
  tls.enabled = true;
  if (tls.ca_file.empty() && tls.verify) tls.ca_file = certs_.ca();
  return tls;
}

demo::EchoServiceProxy TlsFixture::Proxy(ClientTlsOptions tls, ClientOptions options) {
  options.target = target();
  options.tls = std::move(tls);
  std::shared_ptr<Channel> channel;
  const Status opened = NewChannel(options, &channel);
  EXPECT_TRUE(opened.ok()) << opened;
  return demo::EchoServiceProxy(channel);
}

demo::EchoServiceProxy TlsFixture::PlaintextProxy() { return Proxy(ClientTlsOptions{}); }

void TlsFixture::TearDown() {
  if (server_) server_->Stop();
}

demo::EchoRequest EchoOf(std::string payload) {
  demo::EchoRequest request;
  request.set_payload(std::move(payload));
  return request;
}

double TlsFailures(const std::string& reason) {
  const std::string text = metrics::RenderText(metrics::Metrics());
  const std::string sample =
      "ferry_server_tls_handshake_failures_total{reason=\"" + reason + "\"} ";
  const size_t at = text.find(sample);
  return at == std::string::npos ? 0 : std::stod(text.substr(at + sample.size()));
}

double HandshakesInProgress(uint16_t port) {
  const std::string text = metrics::RenderText(metrics::Metrics());
  const std::string sample =
      "ferry_server_tls_handshakes_in_progress{port=\"" + std::to_string(port) + "\"} ";
  const size_t at = text.find(sample);
  return at == std::string::npos ? -1 : std::stod(text.substr(at + sample.size()));
}

double TlsFailuresOnceAtLeast(const std::string& reason, double count) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  double seen = TlsFailures(reason);
  while (seen < count && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    seen = TlsFailures(reason);
  }
  return seen;
}

}  // namespace ferry::tls_test
