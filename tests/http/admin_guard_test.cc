// Who may have the admin pages, for peers a loopback test server is never reached from (other
// networks, IPv6, a dual-stack listener's IPv4-mapped peers), and the JSON the status page writes
// whatever bytes it is given.
#include "http/admin_guard.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "http/forwarded_for.h"
#include "http/http_exchange.h"
#include "http/http_status.h"

namespace ferry::http {
namespace {

namespace ip = boost::asio::ip;
using Port = HttpRouter::Port;
using Headers = std::vector<std::pair<std::string, std::string>>;

AdminGuard Guard(const std::string& yaml_like_networks = "",
                 std::vector<std::string> trusted_proxies = {},
                 std::vector<std::string> admin_hosts = {}) {
  ServerOptions options;
  options.listen = "status.internal:7001";
  if (!yaml_like_networks.empty()) options.http.admin_networks = {yaml_like_networks};
  options.http.trusted_proxies = std::move(trusted_proxies);
  options.http.admin_hosts = std::move(admin_hosts);
  AdminGuard guard;
  const Status status = AdminGuard::Create(options, "http.", &guard);
  EXPECT_TRUE(status.ok()) << status;
  return guard;
}

// A request from `peer` as the session would make it, its client found as the session finds it.
class Request {
 public:
  Request(std::string method, const std::string& peer, Headers headers,
          const std::vector<std::string>& trusted_proxies = {})
      : peer_(ip::make_address(peer)), peer_text_(peer) {
    TrustedProxies proxies;
    EXPECT_TRUE(TrustedProxies::FromList(trusted_proxies, "trusted_proxies", &proxies).ok());
    std::string client = ForwardedClient(proxies, peer_, headers);
    exchange_.emplace(1,
                      HttpExchange::Parsed{.method = std::move(method),
                                           .target = "/status",
                                           .body = "",
                                           .headers = std::move(headers),
                                           .keep_alive = true,
                                           .version = 11},
                      HttpExchange::Origin{.peer = peer_text_,
                                           .peer_identity = "",
                                           .peer_address = peer_text_,
                                           .forwarded_client = std::move(client)});
  }
  const HttpRequest& request() const { return exchange_->request(); }
  const ip::address& peer() const { return peer_; }

 private:
  const ip::address peer_;
  const std::string peer_text_;
  std::optional<HttpExchange> exchange_;
};

Port RoutesFor(const AdminGuard& guard, const Request& request, Port port = Port::kEvery) {
  return guard.RoutesFor(port, request.request(), request.peer());
}

TEST(AdminGuardTest, OnTheSharedPortClientsOutsideTheAdminNetworksSeeNoAdminPages) {
  const AdminGuard loopback = Guard();
  EXPECT_EQ(RoutesFor(loopback, Request("GET", "127.0.0.1", {})), Port::kEvery);
  EXPECT_EQ(RoutesFor(loopback, Request("GET", "127.9.9.9", {})), Port::kEvery);
  EXPECT_EQ(RoutesFor(loopback, Request("GET", "::1", {})), Port::kEvery);
  EXPECT_EQ(RoutesFor(loopback, Request("GET", "::ffff:127.0.0.1", {})), Port::kEvery);
  for (const char* outside : {"10.0.0.5", "203.0.113.7", "2001:db8::1", "::ffff:10.0.0.5"}) {
    EXPECT_EQ(RoutesFor(loopback, Request("GET", outside, {})), Port::kOutside) << outside;
  }
  const AdminGuard ops = Guard("10.0.0.0/8");
  EXPECT_EQ(RoutesFor(ops, Request("GET", "10.1.2.3", {})), Port::kEvery);
  EXPECT_EQ(RoutesFor(ops, Request("GET", "127.0.0.1", {})), Port::kOutside);
  // A listener of the admin pages' own, or the public port beside it, is what it is.
  EXPECT_EQ(RoutesFor(ops, Request("GET", "203.0.113.7", {}), Port::kAdmin), Port::kAdmin);
  EXPECT_EQ(RoutesFor(ops, Request("GET", "203.0.113.7", {}), Port::kPublic), Port::kPublic);
}

TEST(AdminGuardTest, BehindATrustedProxyTheClientItNamesIsJudged) {
  const std::vector<std::string> proxy = {"10.0.0.1/32"};
  const AdminGuard guard = Guard("192.0.2.0/24", proxy);
  EXPECT_EQ(RoutesFor(guard, Request("GET", "10.0.0.1", {{"X-Forwarded-For", "192.0.2.9"}}, proxy)),
            Port::kEvery);
  EXPECT_EQ(
      RoutesFor(guard, Request("GET", "10.0.0.1", {{"X-Forwarded-For", "203.0.113.7"}}, proxy)),
      Port::kOutside);
  // Whoever forwards without being trusted: its client is not known, so not an admin.
  const AdminGuard untrusting = Guard("10.0.0.0/8");
  for (const Headers& says :
       {Headers{{"X-Forwarded-For", "10.0.0.9"}}, Headers{{"forwarded", "for=10.0.0.9"}},
        Headers{{"X-Real-IP", "10.0.0.9"}}}) {
    EXPECT_EQ(RoutesFor(untrusting, Request("GET", "10.0.0.1", says)), Port::kOutside)
        << says.front().first;
  }
}

TEST(AdminGuardTest, AnAdminPageAnswersOnlyItsOwnHostNames) {
  const AdminGuard guard = Guard("", {}, {"ops.example.com"});
  const auto refused = [&](const std::string& host) {
    return guard.Refusal(Request("GET", "127.0.0.1", {{"Host", host}}).request()).has_value();
  };
  for (const char* host :
       {"127.0.0.1", "127.0.0.1:9100", "10.0.0.5:7001", "[::1]:9100", "[2001:db8::1]", "localhost",
        "LocalHost:9100", "localhost.", "app.localhost:3000", "status.internal:7001",
        "ops.example.com", "OPS.EXAMPLE.COM.:443"}) {
    EXPECT_FALSE(refused(host)) << host;
  }
  for (const char* host : {"evil.example", "evil.example:9100", "127.0.0.1.evil.example",
                           "localhost.evil.example", "status.internal.evil.example",
                           "sub.ops.example.com", "[not-an-address]", "", "2001:db8::1"}) {
    EXPECT_TRUE(refused(host)) << host;
  }
  const std::optional<HttpResponse> refusal =
      guard.Refusal(Request("GET", "127.0.0.1", {{"Host", "evil.example"}}).request());
  ASSERT_TRUE(refusal.has_value());
  EXPECT_EQ(refusal->status, 403);
  EXPECT_FALSE(guard.Refusal(Request("GET", "127.0.0.1", {}).request()).has_value())
      << "no Host: no browser's";
  EXPECT_TRUE(
      guard
          .Refusal(Request("GET", "127.0.0.1", {{"Host", "localhost"}, {"host", "evil.example"}})
                       .request())
          .has_value());
}

TEST(AdminGuardTest, AnythingButGetOrHeadMustComeFromTheServersOwnOrigin) {
  const AdminGuard guard = Guard();
  const auto refused = [&](std::string method, Headers headers) {
    return guard.Refusal(Request(std::move(method), "127.0.0.1", std::move(headers)).request())
        .has_value();
  };
  EXPECT_FALSE(refused("POST", {{"Host", "127.0.0.1:9100"}}));
  EXPECT_FALSE(refused("POST", {{"Host", "127.0.0.1:9100"}, {"Origin", "http://127.0.0.1:9100"}}));
  EXPECT_FALSE(refused("POST", {{"Host", "localhost"}, {"Origin", "http://localhost:80"}}));
  EXPECT_FALSE(refused("POST", {{"Host", "localhost:443"}, {"Origin", "https://LOCALHOST"}}));
  EXPECT_FALSE(refused("POST", {{"Host", "localhost"}, {"Sec-Fetch-Site", "same-origin"}}));
  EXPECT_FALSE(refused("POST", {{"Host", "localhost"}, {"Sec-Fetch-Site", "none"}}));
  EXPECT_TRUE(refused("POST", {{"Host", "127.0.0.1:9100"}, {"Origin", "http://evil.example"}}));
  EXPECT_TRUE(refused("POST", {{"Host", "127.0.0.1:9100"}, {"Origin", "http://127.0.0.1:8080"}}));
  EXPECT_TRUE(refused("POST", {{"Host", "127.0.0.1:9100"}, {"Origin", "null"}}));
  EXPECT_TRUE(refused("PUT", {{"Host", "localhost"}, {"Origin", "http://evil.example"}}));
  EXPECT_TRUE(refused("POST", {{"Origin", "http://localhost"}})) << "no Host to compare with";
  EXPECT_TRUE(refused("POST", {{"Host", "localhost"}, {"Sec-Fetch-Site", "cross-site"}}));
  EXPECT_TRUE(refused("POST", {{"Host", "localhost"}, {"Sec-Fetch-Site", "same-site"}}));
  // Reading is the Host check's: a link from another site opens the status page.
  EXPECT_FALSE(refused("GET", {{"Host", "localhost"}, {"Origin", "http://evil.example"}}));
  EXPECT_FALSE(refused("HEAD", {{"Host", "localhost"}, {"Sec-Fetch-Site", "cross-site"}}));
}

TEST(AdminGuardTest, AnAdminNetworkThatIsNoNetworkIsRefused) {
  ServerOptions options;
  options.http.admin_networks = {"10.0.0.0/8", "ops.example"};
  AdminGuard guard;
  const Status status = AdminGuard::Create(options, "http.", &guard);
  EXPECT_EQ(status.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.message().rfind("http.admin_networks[1]: 'ops.example' is not a network", 0), 0u)
      << status;
}

TEST(JsonQuotedTest, WritesValidUtf8WhateverItIsGiven) {
  EXPECT_EQ(JsonQuoted("plain"), "\"plain\"");
  EXPECT_EQ(JsonQuoted("a\"b\\c\nd\x01"), "\"a\\\"b\\\\c\\nd\\u0001\"");
  EXPECT_EQ(JsonQuoted("caf\xc3\xa9"), "\"caf\xc3\xa9\"");
  // Not UTF-8: each byte of it is U+FFFD.
  EXPECT_EQ(JsonQuoted("a\xff"
                       "b\xc3"),
            "\"a\\ufffdb\\ufffd\"");
  EXPECT_EQ(JsonQuoted("\xc0\xaf"), "\"\\ufffd\\ufffd\"");             // overlong '/'
  EXPECT_EQ(JsonQuoted("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"");  // a surrogate
  EXPECT_EQ(JsonQuoted("\xe2\x80\xa8"), "\"\\u2028\"");
}

}  // namespace
}  // namespace ferry::http
