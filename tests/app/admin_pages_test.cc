// The admin pages every ferry::App serves (docs/http.md): /health and /ready through a
// registration held up by a stalled ZooKeeper and through a drain, /metrics counting binary and
// HTTP calls by method and status, /status and /status.json showing methods, clients and the
// configuration with its secrets redacted, and /loglevel only on an admin listener of its own.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <future>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "echo.ferry.h"
#include "ferry/framework/app.h"
#include "ferry/framework/logging.h"
#include "process.h"
#include "raw_http_client.h"
#include "service/echo_service.h"
#include "zookeeper_server.h"

namespace ferry::app_test {
namespace {

using namespace std::chrono_literals;
using http_test::RawHttpClient;
using http_test::RawResponse;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr std::string_view kEcho = "ferry.demo.EchoService";

Config Parse(const std::string& yaml) {
  Config config;
  const Status status = ParseConfig(yaml, "admin.yaml", &config);
  EXPECT_TRUE(status.ok()) << status;
  return config;
}

// One request on a connection of its own; a status of 0 when nothing came back.
RawResponse Http(uint16_t port, std::string_view method, std::string_view target,
                 std::string_view body = "") {
  RawHttpClient client(port);
  if (!client.Send(http_test::Request(method, target, body))) return {};
  return client.Read().value_or(RawResponse{});
}

// The value of the sample line `series` (name and labels exactly as exposed); NaN when absent.
double SampleOf(const std::string& exposition, const std::string& series) {
  const std::string prefix = series + " ";
  for (size_t at = 0; at < exposition.size();) {
    const size_t end = exposition.find('\n', at);
    const std::string_view line(exposition.data() + at,
                                (end == std::string::npos ? exposition.size() : end) - at);
    if (line.starts_with(prefix))
      return std::strtod(std::string(line.substr(prefix.size())).c_str(), nullptr);
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return std::nan("");
}

std::string Calls(std::string_view side, std::string_view method, std::string_view code) {
  return "ferry_" + std::string(side) + "_calls_total{service=\"" + std::string(kEcho) +
         "\",method=\"" + std::string(method) + "\",code=\"" + std::string(code) + "\"}";
}

// One request of exactly these bytes, on a connection of its own, from `from` (an address of
// 127.0.0.0/8) when given.
RawResponse HttpRaw(uint16_t port, const std::string& request, const char* from = nullptr) {
  std::optional<RawHttpClient> client;
  if (from == nullptr) {
    client.emplace(port);
  } else {
    client.emplace(port, from);
  }
  if (!client->connected() || !client->Send(request)) return {};
  return client->Read().value_or(RawResponse{});
}

// `method target` with these Host and other header lines (none when empty).
std::string RequestWith(std::string_view method, std::string_view target, std::string_view host,
                        std::string_view headers = "", std::string_view body = "") {
  std::string request = std::string(method) + " " + std::string(target) + " HTTP/1.1\r\n";
  if (!host.empty()) request += "Host: " + std::string(host) + "\r\n";
  request += std::string(headers);
  request += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + std::string(body);
  return request;
}

// Zero for a series that has not appeared yet.
double ValueOr0(const std::string& exposition, const std::string& series) {
  const double value = SampleOf(exposition, series);
  return std::isnan(value) ? 0 : value;
}

// Polls `path` until its status is `status`: for states that change on another thread's
// schedule. Bounded.
bool WaitForStatus(uint16_t port, std::string_view path, int status) {
  for (int i = 0; i < 1000; ++i) {
    if (Http(port, "GET", path).status == status) return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

demo::EchoRequest EchoOf(std::string payload) {
  demo::EchoRequest request;
  request.set_payload(std::move(payload));
  return request;
}

TEST(AdminPagesTest, ReadyOnlyOnceRegisteredAndNotWhileDraining) {
  testsupport::ZooKeeperServer zookeeper;
  ASSERT_TRUE(zookeeper.Start());
  const uint16_t port = testsupport::internal::PickFreePort();
  demo::EchoServiceImpl echo;
  App app("provider", Parse("registry: {url: \"" + zookeeper.url() +
                            "\", connect_timeout_ms: 60000}\n" + "server: {listen: 127.0.0.1:" +
                            std::to_string(port) + ", drain_delay_ms: 2000}\n"));
  app.AddService(&echo);

  // Listening, but the registry does not answer: alive and not ready.
  zookeeper.Pause();
  std::future<Status> started = std::async(std::launch::async, [&] { return app.Start(); });
  ASSERT_TRUE(WaitForStatus(port, "/health", 200));
  EXPECT_EQ(Http(port, "GET", "/ready").status, 503);
  EXPECT_THAT(Http(port, "GET", "/status.json").body, HasSubstr("\"ready\":false"));
  zookeeper.Resume();
  ASSERT_EQ(started.wait_for(60s), std::future_status::ready);
  const Status status = started.get();
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(Http(port, "GET", "/ready").status, 200);

  // Unregistered and draining: still serving, no longer ready.
  std::future<void> stopped = std::async(std::launch::async, [&] { app.Stop(); });
  ASSERT_TRUE(WaitForStatus(port, "/ready", 503));
  EXPECT_EQ(Http(port, "GET", "/health").status, 200);
  ClientOptions options;
  options.target = "127.0.0.1:" + std::to_string(port);
  std::shared_ptr<Channel> channel;
  ASSERT_TRUE(NewChannel(options, &channel).ok());
  EXPECT_TRUE(demo::EchoServiceProxy(channel).Echo(EchoOf("still served")).ok());
  stopped.get();
}

// A provider App on an ephemeral port; `server_keys` go into its `server:` mapping,
// `sections` after it.
class AdminApp {
 public:
  explicit AdminApp(const std::string& server_keys = "", const std::string& sections = "")
      : app_("admin-app", Parse("server: {listen: 127.0.0.1:0, drain_delay_ms: 0" + server_keys +
                                "}\n" + sections)) {
    app_.AddService(&echo_);
    const Status started = app_.Start();
    EXPECT_TRUE(started.ok()) << started;
  }
  uint16_t port() const { return app_.port(); }
  App& app() { return app_; }

 private:
  demo::EchoServiceImpl echo_;
  App app_;
};

TEST(AdminPagesTest, MetricsCountBinaryAndHttpCallsByMethodAndStatus) {
  AdminApp provider;
  const std::string before = Http(provider.port(), "GET", "/metrics").body;
  ClientOptions options;
  options.target = "127.0.0.1:" + std::to_string(provider.port());
  std::shared_ptr<Channel> channel;
  ASSERT_TRUE(NewChannel(options, &channel).ok());
  demo::EchoServiceProxy proxy(channel);
  constexpr int kOk = 7;
  constexpr int kFailed = 3;
  constexpr int kHttp = 4;
  for (int i = 0; i < kOk; ++i) ASSERT_TRUE(proxy.Echo(EchoOf("x")).ok());
  demo::DelayRequest failing;
  failing.set_fail_code(static_cast<uint32_t>(StatusCode::NOT_FOUND));
  for (int i = 0; i < kFailed; ++i) {
    EXPECT_EQ(proxy.Delay(failing).status().code(), StatusCode::NOT_FOUND);
  }
  for (int i = 0; i < kHttp; ++i) {
    EXPECT_EQ(Http(provider.port(), "POST", "/ferry.demo.EchoService/Echo", "{}").status, 200);
  }

  const RawResponse scrape = Http(provider.port(), "GET", "/metrics");
  ASSERT_EQ(scrape.status, 200);
  EXPECT_EQ(scrape.headers.at("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  const std::string& after = scrape.body;
  const auto delta = [&](const std::string& series) {
    return ValueOr0(after, series) - ValueOr0(before, series);
  };
  EXPECT_EQ(delta(Calls("server", "Echo", "OK")), kOk + kHttp);
  EXPECT_EQ(delta(Calls("server", "Delay", "NOT_FOUND")), kFailed);
  EXPECT_EQ(delta(Calls("client", "Echo", "OK")), kOk);
  EXPECT_EQ(delta(Calls("client", "Delay", "NOT_FOUND")), kFailed);
  EXPECT_EQ(delta("ferry_server_call_duration_seconds_count{service=\"ferry.demo.EchoService\","
                  "method=\"Echo\"}"),
            kOk + kHttp);
  EXPECT_EQ(SampleOf(after,
                     "ferry_server_calls_in_flight{service=\"ferry.demo.EchoService\","
                     "method=\"Echo\"}"),
            0);
  // Delay runs on the business pool: each of its calls waited in the queue.
  EXPECT_EQ(delta("ferry_server_business_pool_queue_wait_seconds_count"), kFailed);
  EXPECT_GE(SampleOf(after, "ferry_server_connections{protocol=\"ferry\"}"), 1);
  EXPECT_GE(SampleOf(after, "ferry_server_connections{protocol=\"http\"}"), 1) << "this scrape's";
  EXPECT_GT(delta("ferry_server_received_bytes_total{protocol=\"ferry\"}"), 0);
  EXPECT_GT(delta("ferry_server_sent_bytes_total{protocol=\"http\"}"), 0);
  EXPECT_GT(SampleOf(after, "process_resident_memory_bytes"), 0);
  EXPECT_GT(SampleOf(after, "process_open_fds"), 0);
}

TEST(AdminPagesTest, AFullPoolsRejectionsAreCountedAsTheCallersSawThem) {
  // One worker and one queued call: a third concurrent call is refused at once.
  App small("small", Parse("server: {listen: 127.0.0.1:0, drain_delay_ms: 0, "
                           "business_pool: {threads: 1, queue_capacity: 1}}\n"));
  demo::EchoServiceImpl echo;
  small.AddService(&echo);
  ASSERT_TRUE(small.Start().ok());
  const std::string before = Http(small.port(), "GET", "/metrics").body;
  ClientOptions options;
  options.target = "127.0.0.1:" + std::to_string(small.port());
  options.default_timeout = 10s;
  std::shared_ptr<Channel> channel;
  ASSERT_TRUE(NewChannel(options, &channel).ok());
  demo::EchoServiceProxy proxy(channel);
  demo::DelayRequest slow;
  slow.set_sleep_ms(300);
  std::vector<CallFuture<demo::EchoResponse>> calls;
  constexpr int kCalls = 6;
  for (int i = 0; i < kCalls; ++i) calls.push_back(proxy.DelayAsync(slow));
  int overloaded = 0;
  for (auto& call : calls) {
    const Result<demo::EchoResponse> result = call.get();
    if (!result.ok()) {
      EXPECT_EQ(result.status().code(), StatusCode::OVERLOADED) << result.status();
      ++overloaded;
    }
  }
  ASSERT_GE(overloaded, 1) << "the pool admits two calls at once";
  const std::string after = Http(small.port(), "GET", "/metrics").body;
  EXPECT_EQ(ValueOr0(after, "ferry_server_business_pool_rejections_total") -
                ValueOr0(before, "ferry_server_business_pool_rejections_total"),
            overloaded);
  EXPECT_EQ(ValueOr0(after, Calls("server", "Delay", "OVERLOADED")) -
                ValueOr0(before, Calls("server", "Delay", "OVERLOADED")),
            overloaded);
  EXPECT_EQ(SampleOf(after, "ferry_server_business_pool_queue_depth{port=\"" +
                                std::to_string(small.port()) + "\"}"),
            0);
}

TEST(AdminPagesTest, StatusShowsMethodsClientsAndTheConfigWithoutItsSecrets) {
  AdminApp provider;
  AdminApp caller("", "clients:\n  peer: {target: 127.0.0.1:" + std::to_string(provider.port()) +
                          "}\n  idle: {target: 127.0.0.1:1}\n"
                          "  found: {service: ferry.demo.EchoService, registry: "
                          "\"zookeeper://ferry:zkpw9@127.0.0.1:1\"}\n"
                          "service: {db_password: hunter2, dsn: \"mysql://app:s3cret@db:3306/x\", "
                          "auth: {tokens: [alpha, beta]}, name: visible, admin_token_sha256: "
                          "5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8, "
                          "apiKey: k3yval, accessToken: t0kval, secrets: [gamma, delta]}\n");
  auto peer = caller.app().Client<demo::EchoServiceProxy>("peer");
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(peer.Echo(EchoOf("p")).ok());

  const RawResponse json = Http(provider.port(), "GET", "/status.json");
  ASSERT_EQ(json.status, 200);
  EXPECT_EQ(json.headers.at("content-type"), "application/json");
  EXPECT_THAT(json.body, HasSubstr("\"service\":\"ferry.demo.EchoService\",\"method\":\"Echo\""));
  EXPECT_THAT(json.body, HasSubstr("\"ready\":true"));

  const RawResponse page = Http(caller.port(), "GET", "/status");
  ASSERT_EQ(page.status, 200);
  EXPECT_EQ(page.headers.at("content-type"), "text/html; charset=utf-8");
  EXPECT_THAT(page.body, HasSubstr("<table id=\"methods\">"));
  EXPECT_THAT(page.body,
              HasSubstr("<td>peer</td><td>127.0.0.1:" + std::to_string(provider.port()) + "</td>"));
  EXPECT_THAT(page.body, HasSubstr("<td>direct</td>"));
  // Configured but never asked for: listed, and said so.
  EXPECT_THAT(page.body,
              HasSubstr("<td>idle</td><td>127.0.0.1:1</td><td colspan=\"4\">not used yet"));
  // A registry URL's credentials are not shown either.
  EXPECT_THAT(page.body, HasSubstr("<td>found</td><td>ferry.demo.EchoService via "
                                   "zookeeper://&lt;redacted&gt;@127.0.0.1:1</td>"));
  EXPECT_THAT(
      page.body,
      HasSubstr("<span id=\"address\">127.0.0.1:" + std::to_string(caller.port()) + "</span>"));
  EXPECT_THAT(page.body, HasSubstr("name: visible"));
  EXPECT_THAT(page.body, HasSubstr("db_password: &lt;redacted&gt;"));
  EXPECT_THAT(page.body, HasSubstr("mysql://&lt;redacted&gt;@db:3306/x"));
  for (const char* secret : {"hunter2", "s3cret", "alpha", "beta", "zkpw9", "5e884898", "k3yval",
                             "t0kval", "gamma", "delta"}) {
    EXPECT_THAT(page.body, Not(HasSubstr(secret))) << secret;
  }
  // A list under a secret's key goes whole, not item by item.
  EXPECT_THAT(page.body, HasSubstr("secrets: &lt;redacted&gt;"));
  EXPECT_THAT(page.body, HasSubstr("apiKey: &lt;redacted&gt;"));
}

// The shared port shows its admin pages to clients in server.http.admin_networks alone. Every
// connection of this test comes from 127.0.0.1 unless it says otherwise; 127.0.0.2, any of
// 127.0.0.0/8 being this host's, stands for an operator's network.
TEST(AdminPagesTest, OnTheSharedPortOnlyAdminNetworksSeeTheAdminPages) {
  AdminApp provider(", http: {admin_networks: [127.0.0.2/32]}");
  const uint16_t port = provider.port();
  // As if they had a listener of their own: absent, not forbidden.
  for (const char* page : {"/status", "/status.json", "/metrics", "/loglevel"}) {
    const RawResponse hidden = Http(port, "GET", page);
    EXPECT_EQ(hidden.status, 404) << page;
    EXPECT_THAT(hidden.body, HasSubstr("no route for GET")) << page;
  }
  EXPECT_EQ(Http(port, "POST", "/loglevel", "off").status, 404);
  // Probes are for every network; the services too.
  EXPECT_EQ(Http(port, "GET", "/health").status, 200);
  EXPECT_EQ(Http(port, "GET", "/ready").status, 200);
  EXPECT_EQ(Http(port, "POST", "/ferry.demo.EchoService/Echo", "{}").status, 200);
  // From the admin network, everything.
  for (const char* page : {"/status", "/status.json", "/metrics", "/loglevel", "/health"}) {
    EXPECT_EQ(HttpRaw(port, RequestWith("GET", page, "127.0.0.1"), "127.0.0.2").status, 200)
        << page;
  }
}

// Behind a trusted proxy a request is judged by the client the proxy names, so that a proxy on
// loopback does not make every client it forwards for a local one; a request saying it was
// forwarded by a proxy that is not trusted has an unknown client, never an admin.
TEST(AdminPagesTest, AdminNetworksJudgeTheClientAProxyForwardsFor) {
  AdminApp provider(", http: {trusted_proxies: [127.0.0.1/32]}");
  const uint16_t port = provider.port();
  const auto from = [&](std::string_view forwarded_for, std::string_view page) {
    return HttpRaw(port, RequestWith("GET", page, "localhost",
                                     "X-Forwarded-For: " + std::string(forwarded_for) + "\r\n"))
        .status;
  };
  EXPECT_EQ(from("203.0.113.7", "/status"), 404);
  EXPECT_EQ(from("203.0.113.7", "/health"), 200);
  EXPECT_EQ(from("127.0.0.5", "/status"), 200) << "a loopback client behind the proxy";
  EXPECT_EQ(Http(port, "GET", "/status").status, 200) << "the proxy's own request";

  AdminApp untrusting;
  for (const char* header :
       {"X-Forwarded-For: 127.0.0.1", "Forwarded: for=127.0.0.1", "X-Real-IP: 127.0.0.1"}) {
    EXPECT_EQ(HttpRaw(untrusting.port(),
                      RequestWith("GET", "/status", "localhost", std::string(header) + "\r\n"))
                  .status,
              404)
        << header;
  }
}

// DNS rebinding: a page whose name the attacker points at this host gets the browser to ask for
// the admin pages, with the attacker's name as the Host.
TEST(AdminPagesTest, AdminPagesAnswerOnlyTheirOwnHostNames) {
  const uint16_t admin_port = testsupport::internal::PickFreePort();
  AdminApp provider(", http: {admin_listen: 127.0.0.1:" + std::to_string(admin_port) +
                    ", admin_hosts: [ops.example.com]}");
  const std::string port = std::to_string(admin_port);
  for (const std::string& host :
       std::vector<std::string>{"evil.example", "evil.example:" + port, "127.0.0.1.evil.example",
                                "localhost.evil.example", "ops.example.com.evil.example"}) {
    for (const char* page : {"/status", "/status.json", "/metrics", "/health", "/loglevel"}) {
      const RawResponse refused = HttpRaw(admin_port, RequestWith("GET", page, host));
      EXPECT_EQ(refused.status, 403) << host << page;
      EXPECT_THAT(refused.body, HasSubstr("server.http.admin_hosts")) << host << page;
    }
  }
  for (const std::string& host : std::vector<std::string>{
           "127.0.0.1:" + port, "127.0.0.1", "[::1]:" + port, "localhost:" + port, "LOCALHOST",
           "app.localhost", "10.1.2.3:" + port, "ops.example.com", "OPS.example.com.:" + port}) {
    EXPECT_EQ(HttpRaw(admin_port, RequestWith("GET", "/status", host)).status, 200) << host;
  }
  // No browser leaves Host out; two are no browser's either.
  EXPECT_EQ(HttpRaw(admin_port, RequestWith("GET", "/status", "")).status, 200);
  EXPECT_EQ(
      HttpRaw(admin_port, RequestWith("GET", "/status", "localhost", "Host: evil.example\r\n"))
          .status,
      403);
}

// CSRF: any page an operator opens can make the browser POST to a loopback address; what it
// sends carries that page's Origin (or a Sec-Fetch-Site saying it is another site).
TEST(AdminPagesTest, ALogLevelChangeFromAnotherOriginIsRefused) {
  const uint16_t admin_port = testsupport::internal::PickFreePort();
  AdminApp provider(", http: {admin_listen: 127.0.0.1:" + std::to_string(admin_port) + "}");
  const std::string own = "127.0.0.1:" + std::to_string(admin_port);
  const std::string level = Http(admin_port, "GET", "/loglevel").body;
  for (const std::string& headers : std::vector<std::string>{
           "Origin: http://evil.example\r\n", "Origin: null\r\n", "Origin: http://127.0.0.1:1\r\n",
           "Origin: http://localhost:" + std::to_string(admin_port) + "\r\n",
           "Sec-Fetch-Site: cross-site\r\n", "Sec-Fetch-Site: same-site\r\n",
           "Origin: http://" + own + "\r\nSec-Fetch-Site: same-site\r\n"}) {
    const RawResponse refused =
        HttpRaw(admin_port, RequestWith("POST", "/loglevel", own, headers, "off"));
    EXPECT_EQ(refused.status, 403) << headers;
  }
  EXPECT_EQ(HttpRaw(admin_port, RequestWith("POST", "/loglevel", "evil.example", "", "off")).status,
            403);
  EXPECT_EQ(Http(admin_port, "GET", "/loglevel").body, level) << "unchanged by what was refused";

  // The operator's own page, curl, and a browser's request from the page's own origin.
  const RawResponse same = HttpRaw(
      admin_port,
      RequestWith("POST", "/loglevel", own,
                  "Origin: http://" + own + "\r\nSec-Fetch-Site: same-origin\r\n", "debug"));
  EXPECT_EQ(same.status, 200) << same.body;
  EXPECT_EQ(Http(admin_port, "GET", "/loglevel").body, "debug\n");
  EXPECT_EQ(HttpRaw(admin_port,
                    RequestWith("POST", "/loglevel", "LocalHost:" + std::to_string(admin_port),
                                "Origin: http://localhost:" + std::to_string(admin_port) + "\r\n",
                                "info"))
                .status,
            200);
  EXPECT_EQ(HttpRaw(admin_port, RequestWith("POST", "/loglevel", own, "", "warn")).status, 200);
  // A page linking to the status page opens it: a GET is not refused for its origin.
  EXPECT_EQ(
      HttpRaw(admin_port, RequestWith("GET", "/status", own, "Sec-Fetch-Site: cross-site\r\n"))
          .status,
      200);
  ASSERT_TRUE(SetLogLevel(level.substr(0, level.size() - 1)).ok());
}

TEST(AdminPagesTest, TheMethodsLastMinuteCountsCallsAsTheyHappen) {
  AdminApp provider;
  ClientOptions options;
  options.target = "127.0.0.1:" + std::to_string(provider.port());
  std::shared_ptr<Channel> channel;
  ASSERT_TRUE(NewChannel(options, &channel).ok());
  demo::EchoServiceProxy proxy(channel);
  const std::string before = Http(provider.port(), "GET", "/status.json").body;
  constexpr int kCalls = 12;
  for (int i = 0; i < kCalls; ++i) ASSERT_TRUE(proxy.Echo(EchoOf("m")).ok());
  const std::string after = Http(provider.port(), "GET", "/status.json").body;
  // Other tests of this process count into the same metrics: compare against before.
  const auto calls_of = [](const std::string& json) {
    const std::string key = "\"method\":\"Echo\"";
    const size_t method = json.find(key);
    const size_t calls = json.find("\"calls\":", method);
    return std::stoll(json.substr(calls + 8));
  };
  EXPECT_EQ(calls_of(after) - calls_of(before), kCalls);
}

TEST(AdminPagesTest, TheLogLevelChangesOnlyOnAnAdminListenerOfItsOwn) {
  {
    AdminApp shared;
    const RawResponse refused = Http(shared.port(), "POST", "/loglevel", "debug");
    EXPECT_EQ(refused.status, 403);
    EXPECT_THAT(refused.body, HasSubstr("server.http.admin_listen"));
  }
  const uint16_t admin_port = testsupport::internal::PickFreePort();
  AdminApp apart(", http: {admin_listen: 127.0.0.1:" + std::to_string(admin_port) + "}");
  // The admin pages leave the public port.
  EXPECT_EQ(Http(apart.port(), "GET", "/metrics").status, 404);
  EXPECT_EQ(Http(admin_port, "GET", "/health").status, 200);
  const std::string level = Http(admin_port, "GET", "/loglevel").body;
  const RawResponse set = Http(admin_port, "POST", "/loglevel", "debug");
  EXPECT_EQ(set.status, 200) << set.body;
  EXPECT_EQ(Http(admin_port, "GET", "/loglevel").body, "debug\n");
  const RawResponse bad = Http(admin_port, "POST", "/loglevel", "loud");
  EXPECT_EQ(bad.status, 400);
  EXPECT_THAT(bad.body, HasSubstr("loud"));
  ASSERT_TRUE(SetLogLevel(level.substr(0, level.size() - 1)).ok());
}

}  // namespace
}  // namespace ferry::app_test
