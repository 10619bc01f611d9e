// The `authz` server filter on a real server: who may call which method, by the identities the
// filters before it verified (auth's caller, user_token's user and roles, the TLS client
// certificate), deny by default for the services it lists.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "ferry/plugins/user_token.h"
#include "filter_fixture.h"
#include "glob.h"
#include "metric_value.h"
#include "raw_http_client.h"
#include "recording_filters.h"
#include "test_certificates.h"

namespace ferry::plugins_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

constexpr std::string_view kUserSecret = "u5er-s3cr3t";

int64_t NowS() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// A user token for `user` with `roles` (u3; u2 without), as a login service would mint it.
CallOptions AsUser(std::string_view user, std::vector<std::string_view> roles = {}) {
  CallOptions options;
  options.attachments[std::string(plugins::kUserTokenAttachment)] =
      plugins::MakeUserToken("default", kUserSecret,
                             {.user = user,
                              .audience = "echo",
                              .token_id = "t-" + std::to_string(roles.size()),
                              .issued_unix_s = NowS(),
                              .expires_unix_s = NowS() + 600,
                              .roles = std::move(roles)});
  return options;
}

void ExpectDenied(const Status& status, const std::string& why) {
  EXPECT_EQ(status.code(), StatusCode::PERMISSION_DENIED) << status;
  EXPECT_THAT(status.message(), HasSubstr(why));
}

// auth and user_token verify what comes (neither is required: authz says who must prove what),
// then authz decides. Echo is the operators', Delay any signed-in user's.
constexpr std::string_view kOperatorPolicy = R"(
    - {name: test_recorder, tag: log}
    - name: auth
      keys: [{id: ops, secret: s3cr3t, callers: ["ops-*", "billing"]}]
      optional: [ferry.demo.EchoService/Echo, ferry.demo.EchoService/Delay]
    - name: user_token
      secret: u5er-s3cr3t
      optional: [ferry.demo.EchoService/Echo, ferry.demo.EchoService/Delay]
    - name: authz
      services: [ferry.demo.EchoService]
      rules:
        - methods: [ferry.demo.EchoService/Echo]
          allow: [{caller: "ops-*"}, {role: operator}]
          deny: [{caller: ops-suspended}]
        - methods: [ferry.demo.EchoService/Delay]
          allow: [{user: any}]
)";

class AuthzTest : public FilterFixture {
 protected:
  void SetUp() override {
    ClearRecordedEvents();
    StartServer(std::string(kOperatorPolicy));
  }
  demo::EchoServiceProxy Signed(std::string_view caller) {
    return NewProxy(
        "[{name: auth, keys: [{id: ops, secret: s3cr3t}], caller: " + std::string(caller) + "}]");
  }
};

TEST_F(AuthzTest, AVerifiedCallerMatchingAPatternIsAllowed) {
  const auto echoed = Signed("ops-1").Echo(EchoOf("x"));
  ASSERT_TRUE(echoed.ok()) << echoed.status();
  EXPECT_EQ(service_.last_verified_caller(), "ops-1");
  ExpectDenied(Signed("billing").Echo(EchoOf("x")).status(),
               "authz: permission denied for ferry.demo.EchoService/Echo (caller 'billing')");
  EXPECT_EQ(service_.handled(), 1);
}

TEST_F(AuthzTest, ARoleTheUserTokenSignsIsAllowedAndReachesTheHandler) {
  demo::EchoServiceProxy proxy = NewProxy();
  const auto echoed = proxy.Echo(EchoOf("x"), AsUser("ann", {"operator", "auditor"}));
  ASSERT_TRUE(echoed.ok()) << echoed.status();
  EXPECT_EQ(service_.last_verified_user(), "ann");
  EXPECT_THAT(service_.last_verified_roles(), ElementsAre("auditor", "operator"));
  ExpectDenied(proxy.Echo(EchoOf("x"), AsUser("bob", {"auditor"})).status(),
               "(user 'bob' with roles 'auditor')");
  ExpectDenied(proxy.Echo(EchoOf("x"), AsUser("carol")).status(), "(user 'carol')");
}

TEST_F(AuthzTest, AnyVerifiedUserIsAllowedWhereTheRuleSaysSo) {
  const auto delayed = NewProxy().Delay(demo::DelayRequest(), AsUser("dave"));
  ASSERT_TRUE(delayed.ok()) << delayed.status();
  EXPECT_EQ(service_.last_verified_user(), "dave");
  EXPECT_THAT(service_.last_verified_roles(), IsEmpty());
  // A signed service is not a user.
  ExpectDenied(Signed("ops-1").Delay(demo::DelayRequest()).status(),
               "permission denied for ferry.demo.EchoService/Delay (caller 'ops-1')");
}

TEST_F(AuthzTest, AnAnonymousCallOfAListedServiceIsDenied) {
  demo::EchoServiceProxy anonymous = NewProxy();
  ExpectDenied(anonymous.Echo(EchoOf("x")).status(),
               "authz: permission denied for ferry.demo.EchoService/Echo (an anonymous call)");
  ExpectDenied(anonymous.Delay(demo::DelayRequest()).status(), "(an anonymous call)");
  EXPECT_EQ(service_.handled(), 0);
}

// The refusal says who the call proved to be, never what would have been allowed.
TEST_F(AuthzTest, TheRefusalDoesNotTellTheRules) {
  const Status denied = NewProxy().Echo(EchoOf("x")).status();
  for (const char* rule_word : {"ops-", "operator", "allow", "deny", "rule", "suspended"}) {
    EXPECT_THAT(denied.message(), Not(HasSubstr(rule_word))) << denied;
  }
  const Status suspended = Signed("ops-suspended").Echo(EchoOf("x")).status();
  ExpectDenied(suspended, "(caller 'ops-suspended')");
  const Status unmatched = Signed("billing").Echo(EchoOf("x")).status();
  // A deny entry that matched and an allow entry that did not read alike.
  EXPECT_EQ(
      std::string(suspended.message()).replace(suspended.message().find("ops-suspended"), 13, "X"),
      std::string(unmatched.message()).replace(unmatched.message().find("billing"), 7, "X"));
}

TEST_F(AuthzTest, ADenyEntryRefusesWhatAnAllowEntryLetsIn) {
  ExpectDenied(Signed("ops-suspended").Echo(EchoOf("x")).status(),
               "permission denied for ferry.demo.EchoService/Echo");
  EXPECT_EQ(service_.handled(), 0);
}

// A credential that comes is checked even where none is required: a forged one is refused by
// its filter, not treated as none.
TEST_F(AuthzTest, ABadCredentialIsRefusedByItsFilterNotTakenForAnonymous) {
  const Status forged = NewProxy("[{name: auth, keys: [{id: ops, secret: guess}], caller: ops-1}]")
                            .Echo(EchoOf("x"))
                            .status();
  EXPECT_EQ(forged.code(), StatusCode::UNAUTHENTICATED) << forged;
  EXPECT_THAT(forged.message(), HasSubstr("invalid token signature"));
  CallOptions bad_user;
  bad_user.attachments[std::string(plugins::kUserTokenAttachment)] = "u2:garbage";
  const Status malformed = NewProxy().Delay(demo::DelayRequest(), bad_user).status();
  EXPECT_EQ(malformed.code(), StatusCode::UNAUTHENTICATED) << malformed;
}

// auth's key may sign only its callers: the caller patterns of authz mean what they say.
TEST_F(AuthzTest, AKeyCannotSignACallerItIsNotFor) {
  const Status claimed = Signed("admin").Echo(EchoOf("x")).status();
  EXPECT_EQ(claimed.code(), StatusCode::UNAUTHENTICATED) << claimed;
  EXPECT_THAT(claimed.message(), HasSubstr("auth: key 'ops' may not sign caller 'admin'"));
}

// A refusal is a call answered PERMISSION_DENIED, as counted and as the filters before it see.
TEST_F(AuthzTest, ARefusalIsCountedAndLoggedAsPermissionDenied) {
  const std::string series =
      "ferry_server_calls_total{service=\"ferry.demo.EchoService\",method=\"Echo\",code="
      "\"PERMISSION_DENIED\"}";
  const double before = MetricValue(series);
  ExpectDenied(NewProxy().Echo(EchoOf("x")).status(), "permission denied");
  EXPECT_EQ(MetricValue(series), before + 1);
  EXPECT_THAT(RecordedEvents(), ::testing::Contains("server log done PERMISSION_DENIED"));
}

// Patterns match whole, `*` any run of characters, none included.
TEST(GlobTest, StarsStandForAnyRunAndEverythingElseForItself) {
  using plugins::GlobMatches;
  EXPECT_TRUE(GlobMatches("ops-*", "ops-1"));
  EXPECT_TRUE(GlobMatches("ops-*", "ops-"));
  EXPECT_FALSE(GlobMatches("ops-*", "xops-1"));
  EXPECT_TRUE(GlobMatches("*.example", "admin.example"));
  EXPECT_FALSE(GlobMatches("*.example", "admin.example.org"));
  EXPECT_TRUE(GlobMatches("a*b*c", "aXbYbZc"));
  EXPECT_FALSE(GlobMatches("a*b*c", "aXbYbZ"));
  EXPECT_TRUE(GlobMatches("*", ""));
  EXPECT_TRUE(GlobMatches("ops", "ops"));
  EXPECT_FALSE(GlobMatches("ops", "ops1"));
  EXPECT_FALSE(GlobMatches("", "x"));
}

// Servers configured per test.
using AuthzConfiguredTest = FilterFixture;

TEST_F(AuthzConfiguredTest, AnonymousLetsEveryCallInAndUnlistedServicesAreUntouched) {
  routes_.push_back(
      {.method = "GET", .pattern = "/hello", .handler = [](const HttpRequest&, HttpReply reply) {
         reply(HttpResponse{.body = "hi"});
       }});
  StartServer(R"(
    - name: authz
      services: [ferry.demo.EchoService]
      rules:
        - methods: ["ferry.demo.EchoService/*"]
          allow: [anonymous]
)");
  EXPECT_TRUE(NewProxy().Echo(EchoOf("x")).ok());
  EXPECT_TRUE(NewProxy().Delay(demo::DelayRequest()).ok());
  // The HTTP routes are service http, which the filter does not list.
  http_test::RawHttpClient client(server_->port());
  ASSERT_TRUE(client.Send(http_test::Request("GET", "/hello")));
  const auto answer = client.Read();
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 200);
}

TEST_F(AuthzConfiguredTest, RoutesAreGovernedAsServiceHttpAndRefusedWith403) {
  for (const char* path : {"/hello", "/secret"}) {
    routes_.push_back(
        {.method = "GET", .pattern = path, .handler = [](const HttpRequest&, HttpReply reply) {
           reply(HttpResponse{.body = "hi"});
         }});
  }
  StartServer(R"(
    - name: authz
      services: [http]
      rules:
        - methods: ["http/GET /hello"]
          allow: [anonymous]
)");
  http_test::RawHttpClient client(server_->port());
  ASSERT_TRUE(client.Send(http_test::Request("GET", "/hello")));
  const auto hello = client.Read();
  ASSERT_TRUE(hello);
  EXPECT_EQ(hello->status, 200);
  ASSERT_TRUE(client.Send(http_test::Request("GET", "/secret")));
  const auto secret = client.Read();
  ASSERT_TRUE(secret);
  EXPECT_EQ(secret->status, 403);
  EXPECT_THAT(secret->body, HasSubstr("authz: permission denied for http/GET /secret"));
  // The service, unlisted, is untouched.
  EXPECT_TRUE(NewProxy().Echo(EchoOf("x")).ok());
}

TEST_F(AuthzConfiguredTest, AnEntryWithSeveralConditionsNeedsThemAll) {
  StartServer(R"(
    - {name: auth, secret: s3cr3t, optional: [ferry.demo.EchoService/Echo]}
    - name: authz
      services: [ferry.demo.EchoService]
      rules:
        - methods: [ferry.demo.EchoService/Echo]
          allow: [{caller: any, attachments: {tenant: "blue-*"}}]
)");
  demo::EchoServiceProxy signed_proxy = NewProxy("[{name: auth, secret: s3cr3t, caller: gw}]");
  CallOptions blue;
  blue.attachments["tenant"] = "blue-eu";
  EXPECT_TRUE(signed_proxy.Echo(EchoOf("x"), blue).ok());
  CallOptions red;
  red.attachments["tenant"] = "red";
  ExpectDenied(signed_proxy.Echo(EchoOf("x"), red).status(), "(caller 'gw')");
  ExpectDenied(signed_proxy.Echo(EchoOf("x")).status(), "(caller 'gw')");
  // The attachment alone, which any caller can send, proves nobody.
  ExpectDenied(NewProxy().Echo(EchoOf("x"), blue).status(), "(an anonymous call)");
}

TEST_F(AuthzConfiguredTest, AVerifiedClientCertificateIsAllowedByItsName) {
  testsupport::TestCertificates certs;
  ASSERT_TRUE(certs.ok());
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.tls = {.cert_file = certs.server_cert(),
                 .key_file = certs.server_key(),
                 .ca_file = certs.ca(),
                 .client_cert = ServerTlsOptions::ClientCert::kOptional};
  options.filters = Filters("server", R"(
    - name: authz
      services: [ferry.demo.EchoService]
      rules:
        - methods: [ferry.demo.EchoService/Echo]
          allow: [{peer: "ferry-test-*"}]
)");
  server_ = std::make_unique<Server>(std::move(options));
  ASSERT_TRUE(server_->AddService(&service_).ok());
  ASSERT_TRUE(server_->Start().ok());
  const auto proxy = [&](bool with_certificate) {
    ClientOptions client;
    client.target = "127.0.0.1:" + std::to_string(server_->port());
    client.tls = {.enabled = true, .ca_file = certs.ca()};
    if (with_certificate) {
      client.tls.cert_file = certs.client_cert();
      client.tls.key_file = certs.client_key();
    }
    std::shared_ptr<Channel> channel;
    EXPECT_TRUE(NewChannel(client, &channel).ok());
    return demo::EchoServiceProxy(std::move(channel));
  };
  EXPECT_TRUE(proxy(true).Echo(EchoOf("x")).ok());
  ExpectDenied(proxy(false).Echo(EchoOf("x")).status(), "(an anonymous call)");
}

// Mistakes name the key and its line (the list starts on line 3 of the text the fixture reads).
TEST_F(AuthzConfiguredTest, MistakesNameTheKeyAndLine) {
  const auto start = [&](const std::string& filters) { return TryStartServer(filters); };
  const auto expect_invalid = [](const Status& status, const std::string& message) {
    EXPECT_EQ(status.code(), StatusCode::INVALID_ARGUMENT) << status;
    EXPECT_THAT(status.message(), HasSubstr(message));
  };
  expect_invalid(start(R"(
    - name: authz
      services: [ferry.demo.EchoService]
      rules:
        - methods: [ferry.demo.EchoService/Echo]
          allow: [{callr: ops}]
)"),
                 "test:7: server.filters[0].rules[0].allow[0].callr: unknown key");
  expect_invalid(start(R"(
    - name: authz
      services: [ferry.demo.EchoService]
      rules:
        - methods: [ferry.demo.EchoService/Echo]
          allow: [everyone]
)"),
                 "test:7: server.filters[0].rules[0].allow[0]: expected anonymous or a mapping of "
                 "caller, peer, user, role and attachments, got 'everyone'");
  expect_invalid(start(R"(
    - name: authz
      services: [ferry.demo.EchoService]
      rules:
        - methods: [ferry.demo.EchoService/Echo]
          deny: [anonymous]
)"),
                 "test:7: server.filters[0].rules[0].deny[0]: expected {caller, peer, user, "
                 "role, attachments}: anonymous is for allow");
  expect_invalid(start(R"(
    - name: authz
      services: [ferry.demo.EchoService]
      rules:
        - methods: [ferry.demo.OtherService/Get]
          allow: [anonymous]
)"),
                 "test:6: server.filters[0].rules[0].methods[0]: service "
                 "'ferry.demo.OtherService' is not among services");
  expect_invalid(start(R"(
    - name: authz
      services: [ferry.demo.EchoService]
      rules:
        - methods: [ferry.demo.EchoService/Echo]
          allow: [{role: "ops team"}]
)"),
                 "test:7: server.filters[0].rules[0].allow[0].role: expected any, or a pattern "
                 "of 1-64 characters");
  expect_invalid(start(R"(
    - name: authz
      services: [ferry.demo.EchoService]
      rules:
        - methods: [ferry.demo.EchoService/Echo]
          allow: [anonymous]
      deny_all: true
)"),
                 "test:8: server.filters[0].deny_all: unknown key");
  expect_invalid(start(R"(
    - name: auth
      secret: s3cr3t
      exempt: [ferry.demo.EchoService/Echo]
      optional: [ferry.demo.EchoService/Echo]
)"),
                 "test:6: server.filters[0].optional: 'ferry.demo.EchoService/Echo' is exempt "
                 "already");
}

// A method or service the server does not serve is refused at start, naming where it is
// written: a typo would otherwise leave the method meant without a rule.
TEST_F(AuthzConfiguredTest, AMethodOrServiceTheServerDoesNotServeIsRefusedAtStart) {
  const Status typo = TryStartServer(R"(
    - name: authz
      services: [ferry.demo.EchoService]
      rules:
        - methods: [ferry.demo.EchoService/Echo, ferry.demo.EchoService/Ech]
          allow: [anonymous]
)");
  EXPECT_EQ(typo.code(), StatusCode::INVALID_ARGUMENT) << typo;
  EXPECT_THAT(typo.message(),
              HasSubstr("test:6: server.filters[0].rules[0].methods[1]: no method 'Ech' in "
                        "ferry.demo.EchoService on this server (it has Delay, Echo)"));
  const Status service = TryStartServer(R"(
    - name: authz
      services: [ferry.demo.EchoService, ferry.demo.Missing]
      rules:
        - methods: ["ferry.demo.EchoService/*"]
          allow: [anonymous]
)");
  EXPECT_EQ(service.code(), StatusCode::INVALID_ARGUMENT) << service;
  EXPECT_THAT(service.message(),
              HasSubstr("test:4: server.filters[0].services[1]: no service 'ferry.demo.Missing' "
                        "on this server (it serves ferry.demo.EchoService)"));
}

}  // namespace
}  // namespace ferry::plugins_test
