// The client's address behind trusted reverse proxies: X-Forwarded-For from a peer in
// server.http.trusted_proxies names the client, for routes (HttpRequest) and the JSON gateway
// (ServerContext) alike; anyone else's is ignored.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "echo.ferry.h"
#include "ferry/framework/channel.h"
#include "ferry/framework/config.h"
#include "ferry/framework/server.h"
#include "raw_http_client.h"
#include "service/echo_service.h"

namespace ferry::http_test {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// The echo service remembering whom its calls came from, with a route answering whom its
// request came from ("<client_address> <peer>").
class ClientEcho final : public demo::EchoServiceBase {
 public:
  Status Echo(ServerContext& context, const demo::EchoRequest& request,
              demo::EchoResponse* response) override {
    {
      std::lock_guard lock(mu_);
      last_client_ = context.client_address();
      last_peer_ = context.peer();
    }
    return echo_.Echo(context, request, response);
  }
  Status Delay(ServerContext& context, const demo::DelayRequest& request,
               demo::EchoResponse* response) override {
    return echo_.Delay(context, request, response);
  }
  std::vector<HttpRoute> http_routes() override {
    return {{.method = "GET",
             .pattern = "/client",
             .handler = [](const HttpRequest& request, HttpReply reply) {
               reply({.status = 200,
                      .body = std::string(request.client_address()) + " " +
                              std::string(request.peer())});
             }}};
  }
  std::string last_client() const {
    std::lock_guard lock(mu_);
    return last_client_;
  }
  std::string last_peer() const {
    std::lock_guard lock(mu_);
    return last_peer_;
  }

 private:
  demo::EchoServiceImpl echo_;
  mutable std::mutex mu_;
  std::string last_client_;
  std::string last_peer_;
};

class ForwardedForTest : public ::testing::Test {
 protected:
  // `trusted`: the YAML list of server.http.trusted_proxies.
  void Start(const std::string& trusted) {
    Config config;
    const Status parsed =
        ParseConfig("server:\n  listen: 127.0.0.1:0\n  http: {trusted_proxies: " + trusted + "}\n",
                    "xff.yaml", &config);
    ASSERT_TRUE(parsed.ok()) << parsed;
    server_.emplace(config.server);
    ASSERT_TRUE(server_->AddService(&echo_).ok());
    const Status started = server_->Start();
    ASSERT_TRUE(started.ok()) << started;
  }

  // The client address the route sees for a request with `headers` ("Name: value\r\n" lines).
  std::string RouteClient(const std::string& headers) {
    RawHttpClient client(server_->port());
    EXPECT_TRUE(client.Send(Request("GET", "/client", "", headers)));
    const auto reply = client.Read();
    if (!reply || reply->status != 200) {
      ADD_FAILURE() << "no answer from /client";
      return "";
    }
    const size_t space = reply->body.find(' ');
    EXPECT_THAT(reply->body.substr(space + 1), StartsWith("127.0.0.1:"))
        << "peer() is the TCP peer";
    return reply->body.substr(0, space);
  }

  // The client address a gateway call with `headers` sees in its ServerContext.
  std::string GatewayClient(const std::string& headers) {
    RawHttpClient client(server_->port());
    EXPECT_TRUE(client.Send(Request("POST", "/ferry.demo.EchoService/Echo", R"({"payload":"aGk="})",
                                    "Content-Type: application/json\r\n" + headers)));
    const auto reply = client.Read();
    if (!reply || reply->status != 200) {
      ADD_FAILURE() << "the gateway call failed";
      return "";
    }
    EXPECT_THAT(echo_.last_peer(), StartsWith("127.0.0.1:"));
    return echo_.last_client();
  }

  ClientEcho echo_;
  std::optional<Server> server_;
};

TEST_F(ForwardedForTest, ATrustedProxysForwardedClientIsTheClientAddress) {
  Start("[127.0.0.1/32]");
  EXPECT_EQ(RouteClient("X-Forwarded-For: 203.0.113.7\r\n"), "203.0.113.7");
  EXPECT_EQ(GatewayClient("X-Forwarded-For: 203.0.113.7\r\n"), "203.0.113.7");
  EXPECT_EQ(RouteClient("x-forwarded-for: 2001:db8::1\r\n"), "2001:db8::1");
  // Without the header the proxy itself is the client.
  EXPECT_EQ(RouteClient(""), "127.0.0.1");
}

TEST_F(ForwardedForTest, TheChainIsWalkedFromTheRightPastTrustedProxies) {
  Start("[127.0.0.1/32, 10.0.0.0/8]");
  EXPECT_EQ(RouteClient("X-Forwarded-For: 203.0.113.7, 10.1.2.3\r\n"), "203.0.113.7");
  EXPECT_EQ(GatewayClient("X-Forwarded-For: 203.0.113.7, 10.1.2.3\r\n"), "203.0.113.7");
  // What the client itself put on the left proves nothing: the first untrusted hop is it.
  EXPECT_EQ(RouteClient("X-Forwarded-For: 198.51.100.9, 203.0.113.7, 10.1.2.3\r\n"), "203.0.113.7");
  // Several headers are one list, in order.
  EXPECT_EQ(RouteClient("X-Forwarded-For: 198.51.100.9\r\nX-Forwarded-For: 203.0.113.7\r\n"
                        "X-Forwarded-For: 10.1.2.3\r\n"),
            "203.0.113.7");
  // Every hop trusted: the leftmost is the client.
  EXPECT_EQ(RouteClient("X-Forwarded-For: 10.0.0.1, 10.0.0.2\r\n"), "10.0.0.1");
  // Empty list elements mean nothing.
  EXPECT_EQ(RouteClient("X-Forwarded-For: ,203.0.113.7,, 10.1.2.3 ,\r\n"), "203.0.113.7");
}

TEST_F(ForwardedForTest, AnUntrustedPeersForwardedForIsIgnored) {
  Start("[]");
  EXPECT_EQ(RouteClient("X-Forwarded-For: 203.0.113.7\r\n"), "127.0.0.1");
  EXPECT_EQ(GatewayClient("X-Forwarded-For: 203.0.113.7\r\n"), "127.0.0.1");
}

TEST_F(ForwardedForTest, APeerOutsideTheTrustedNetworksIsNotBelieved) {
  Start("[10.0.0.0/8, \"::1/128\"]");
  EXPECT_EQ(RouteClient("X-Forwarded-For: 203.0.113.7\r\n"), "127.0.0.1");
}

TEST_F(ForwardedForTest, AMalformedEntryEndsTheWalkAtTheLastGoodAddress) {
  Start("[127.0.0.1/32, 10.0.0.0/8]");
  EXPECT_EQ(RouteClient("X-Forwarded-For: 203.0.113.7, bogus, 10.1.2.3\r\n"), "10.1.2.3");
  EXPECT_EQ(RouteClient("X-Forwarded-For: 203.0.113.7, 10.1.2.3:8080\r\n"), "127.0.0.1");
  EXPECT_EQ(RouteClient("X-Forwarded-For: 203.0.113.7, [2001:db8::1]\r\n"), "127.0.0.1");
  EXPECT_EQ(RouteClient("X-Forwarded-For: 203.0.113.7, " + std::string(100, '1') + "\r\n"),
            "127.0.0.1");
  EXPECT_EQ(GatewayClient("X-Forwarded-For: 203.0.113.7, unknown\r\n"), "127.0.0.1");
}

TEST_F(ForwardedForTest, BinaryCallsAreTheirPeerWhateverIsTrusted) {
  Start("[127.0.0.1/32]");
  ClientOptions options;
  options.target = "127.0.0.1:" + std::to_string(server_->port());
  std::shared_ptr<Channel> channel;
  ASSERT_TRUE(NewChannel(options, &channel).ok());
  demo::EchoServiceProxy proxy(channel);
  CallOptions call;
  call.attachments["X-Forwarded-For"] = "203.0.113.7";
  ASSERT_TRUE(proxy.Echo(demo::EchoRequest(), call).ok());
  EXPECT_EQ(echo_.last_client(), "127.0.0.1");
}

TEST(ForwardedForOptionsTest, AServerWithAnEntryThatIsNoNetworkDoesNotStart) {
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.http.trusted_proxies = {"10.0.0.0/8", "10.0.0.0/40"};
  Server server(options);
  const Status started = server.Start();
  EXPECT_EQ(started.code(), StatusCode::INVALID_ARGUMENT) << started;
  EXPECT_THAT(started.message(),
              HasSubstr("invalid server options: http.trusted_proxies[1]: '10.0.0.0/40' is not a "
                        "network"));
}

}  // namespace
}  // namespace ferry::http_test
