#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "ferry/plugins/user_token.h"
#include "filter_fixture.h"
#include "raw_http_client.h"

namespace ferry::plugins_test {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using namespace std::chrono_literals;

// At most `attempts` calls, until one is rejected; that rejection, or OK if none was.
Status CallUntilRejected(demo::EchoServiceProxy& proxy, int attempts,
                         const CallOptions& options = {}) {
  for (int i = 0; i < attempts; ++i) {
    const auto result = proxy.Echo(EchoOf("x"), options);
    if (!result.ok()) return result.status();
  }
  return Status::Ok();
}

// Calls every 20 ms for up to five seconds, until one is served.
bool ServedWithinFiveSeconds(demo::EchoServiceProxy& proxy, const CallOptions& options = {}) {
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (std::chrono::steady_clock::now() < deadline) {
    if (proxy.Echo(EchoOf("x"), options).ok()) return true;
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

// What a caller claiming to be `caller` sends: an attachment that proves nothing.
CallOptions Claiming(const std::string& caller) {
  CallOptions options;
  options.attachments["caller"] = caller;
  return options;
}

// The client filters of a caller whose identity `auth` signs.
std::string SignedAs(const std::string& caller) {
  return "[{name: auth, secret: s3cr3t, caller: " + caller + "}]";
}

// Options carrying a user token for `user`, as the `user_token` filter verifies it.
CallOptions ActingFor(const std::string& user) {
  const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  CallOptions options;
  options.attachments[std::string(plugins::kUserTokenAttachment)] =
      plugins::MakeUserToken("default", "u5er", user, now, now + 3600);
  return options;
}

// A call over HTTP of `method` ("Echo", "Delay") that a trusted proxy forwards for `client`.
http_test::RawResponse ForwardedFor(uint16_t port, const std::string& client,
                                    const std::string& method = "Echo") {
  http_test::RawHttpClient http(port);
  EXPECT_TRUE(http.Send(http_test::Request("POST", "/ferry.demo.EchoService/" + method, "{}",
                                           "Content-Type: application/json\r\n"
                                           "X-Forwarded-For: " +
                                               client + "\r\n")));
  return http.Read().value_or(http_test::RawResponse{});
}

using RateLimitTest = FilterFixture;

TEST_F(RateLimitTest, MethodBurstIsExhaustedThenRefills) {
  StartServer("[{name: ratelimit, per_method: {rate: 1, burst: 2}}]");
  demo::EchoServiceProxy proxy = NewProxy();
  ASSERT_TRUE(proxy.Echo(EchoOf("1")).ok());
  ASSERT_TRUE(proxy.Echo(EchoOf("2")).ok());
  // At one token a second, a handful of back-to-back calls cannot all find one.
  const Status rejected = CallUntilRejected(proxy, 5);
  EXPECT_EQ(rejected.code(), StatusCode::RESOURCE_EXHAUSTED) << rejected;
  EXPECT_THAT(rejected.message(),
              AllOf(HasSubstr("rate limit of method ferry.demo.EchoService/Echo exceeded"),
                    HasSubstr("1/s, burst 2")));
  EXPECT_TRUE(ServedWithinFiveSeconds(proxy));
}

TEST_F(RateLimitTest, EachMethodHasItsOwnBucket) {
  StartServer("[{name: ratelimit, per_method: {rate: 1, burst: 1}}]");
  demo::EchoServiceProxy proxy = NewProxy();
  ASSERT_EQ(CallUntilRejected(proxy, 5).code(), StatusCode::RESOURCE_EXHAUSTED);
  demo::DelayRequest delay;
  const auto delayed = proxy.Delay(delay);
  EXPECT_TRUE(delayed.ok()) << delayed.status();
}

TEST_F(RateLimitTest, MethodOverrideReplacesTheDefault) {
  StartServer(
      "[{name: ratelimit, per_method: {rate: 1000, burst: 1000}, "
      "methods: {\"ferry.demo.EchoService/Echo\": {rate: 1, burst: 1}}}]");
  demo::EchoServiceProxy proxy = NewProxy();
  const Status rejected = CallUntilRejected(proxy, 5);
  EXPECT_EQ(rejected.code(), StatusCode::RESOURCE_EXHAUSTED) << rejected;
  EXPECT_THAT(rejected.message(), HasSubstr("1/s, burst 1"));
}

TEST_F(RateLimitTest, CallersVerifiedByAuthAreLimitedSeparately) {
  StartServer("[{name: auth, secret: s3cr3t}, {name: ratelimit, per_caller: {rate: 1, burst: 1}}]");
  demo::EchoServiceProxy alice = NewProxy(SignedAs("alice"));
  const Status rejected = CallUntilRejected(alice, 5);
  EXPECT_EQ(rejected.code(), StatusCode::RESOURCE_EXHAUSTED) << rejected;
  EXPECT_THAT(rejected.message(), HasSubstr("rate limit of caller 'alice' exceeded"));
  const auto bob = NewProxy(SignedAs("bob")).Echo(EchoOf("x"));
  EXPECT_TRUE(bob.ok()) << bob.status();
  EXPECT_TRUE(ServedWithinFiveSeconds(alice));
}

// The `caller` attachment is whatever a client says: it must neither take another caller's
// bucket nor escape its own.
TEST_F(RateLimitTest, AForgedCallerAttachmentGetsNoOtherCallersBucket) {
  StartServer("[{name: auth, secret: s3cr3t}, {name: ratelimit, per_caller: {rate: 1, burst: 1}}]");
  demo::EchoServiceProxy mallory = NewProxy(SignedAs("mallory"));
  ASSERT_TRUE(mallory.Echo(EchoOf("x"), Claiming("alice")).ok());
  // Still mallory's bucket, now empty, whatever name it claims next.
  const Status rejected = mallory.Echo(EchoOf("x"), Claiming("bob")).status();
  EXPECT_EQ(rejected.code(), StatusCode::RESOURCE_EXHAUSTED) << rejected;
  EXPECT_THAT(rejected.message(), HasSubstr("caller 'mallory'"));
  // And alice's bucket is untouched.
  const auto alice = NewProxy(SignedAs("alice")).Echo(EchoOf("x"));
  EXPECT_TRUE(alice.ok()) << alice.status();
}

TEST_F(RateLimitTest, AnUnauthenticatedCallerIsItsAddressWhateverItClaims) {
  StartServer("[{name: ratelimit, per_caller: {rate: 1, burst: 1}}]");
  demo::EchoServiceProxy proxy = NewProxy();
  ASSERT_TRUE(proxy.Echo(EchoOf("x"), Claiming("alice")).ok());
  const Status rejected = proxy.Echo(EchoOf("x"), Claiming("bob")).status();
  EXPECT_EQ(rejected.code(), StatusCode::RESOURCE_EXHAUSTED) << rejected;
  EXPECT_THAT(rejected.message(), HasSubstr("caller '127.0.0.1'"));
}

TEST_F(RateLimitTest, CallerWithoutANameIsItsAddress) {
  StartServer("[{name: ratelimit, per_caller: {rate: 1, burst: 1}}]");
  demo::EchoServiceProxy first = NewProxy();
  demo::EchoServiceProxy second = NewProxy();  // another connection, same host
  ASSERT_TRUE(first.Echo(EchoOf("x")).ok());
  const Status rejected = CallUntilRejected(second, 5);
  EXPECT_EQ(rejected.code(), StatusCode::RESOURCE_EXHAUSTED) << rejected;
  EXPECT_THAT(rejected.message(), HasSubstr("caller '127.0.0.1'"));
}

TEST_F(RateLimitTest, PerUserBucketsAreKeyedByTheVerifiedUserNotByWhatTheRequestSays) {
  StartServer(
      "[{name: user_token, secret: u5er}, {name: ratelimit, per_user: {rate: 0.001, burst: 2}}]");
  demo::EchoServiceProxy proxy = NewProxy();
  // One user whatever payload (or user id field) the request carries.
  ASSERT_TRUE(proxy.Echo(EchoOf("alice"), ActingFor("alice")).ok());
  ASSERT_TRUE(proxy.Echo(EchoOf("bob"), ActingFor("alice")).ok());
  const Status rejected = proxy.Echo(EchoOf("carol"), ActingFor("alice")).status();
  EXPECT_EQ(rejected.code(), StatusCode::RESOURCE_EXHAUSTED) << rejected;
  EXPECT_THAT(rejected.message(),
              AllOf(HasSubstr("rate limit of user 'alice' exceeded"), HasSubstr("burst 2")));
  // Another user, on the same connection, has a bucket of its own.
  EXPECT_TRUE(proxy.Echo(EchoOf("x"), ActingFor("bob")).ok());
}

// A host stays one host whoever auth says its callers are: per_caller would give each signed
// caller a bucket of its own, per_peer gives them one together.
TEST_F(RateLimitTest, PerPeerBucketsAreTheClientsAddressEvenWithVerifiedCallers) {
  StartServer(
      "[{name: auth, secret: s3cr3t}, {name: ratelimit, per_peer: {rate: 0.001, burst: 2}}]");
  demo::EchoServiceProxy alice = NewProxy(SignedAs("alice"));
  demo::EchoServiceProxy bob = NewProxy(SignedAs("bob"));
  ASSERT_TRUE(alice.Echo(EchoOf("x")).ok());
  ASSERT_TRUE(bob.Echo(EchoOf("x")).ok());
  const Status rejected = NewProxy(SignedAs("carol")).Echo(EchoOf("x")).status();
  EXPECT_EQ(rejected.code(), StatusCode::RESOURCE_EXHAUSTED) << rejected;
  EXPECT_THAT(rejected.message(), HasSubstr("rate limit of peer 127.0.0.1 exceeded"));
}

// Behind a trusted reverse proxy the clients it forwards for have a bucket each, not the
// proxy's one together.
TEST_F(RateLimitTest, PerPeerBucketsBehindATrustedProxyAreTheForwardedClients) {
  trusted_proxies_ = {"127.0.0.1/32"};
  StartServer("[{name: ratelimit, per_peer: {rate: 0.001, burst: 1}}]");
  auto call_for = [&](const std::string& client) {
    http_test::RawHttpClient http(server_->port());
    EXPECT_TRUE(http.Send(http_test::Request("POST", "/ferry.demo.EchoService/Echo",
                                             R"({"payload":"aGk="})",
                                             "Content-Type: application/json\r\n"
                                             "X-Forwarded-For: " +
                                                 client + "\r\n")));
    return http.Read().value_or(http_test::RawResponse{});
  };
  EXPECT_EQ(call_for("203.0.113.7").status, 200);
  EXPECT_EQ(call_for("203.0.113.8").status, 200);
  const http_test::RawResponse refused = call_for("203.0.113.7");
  EXPECT_EQ(refused.status, 429);
  EXPECT_THAT(refused.body, HasSubstr("rate limit of peer 203.0.113.7 exceeded"));
  // The proxy's own calls are a client of their own too.
  EXPECT_TRUE(NewProxy().Echo(EchoOf("x")).ok());
}

TEST_F(RateLimitTest, PerFieldBucketsAreKeyedByTheRequestFieldValue) {
  StartServer(
      "[{name: ratelimit, per_field: {\"ferry.demo.EchoService/Echo\": "
      "{payload: {rate: 1, burst: 2}}}}]");
  demo::EchoServiceProxy proxy = NewProxy();
  ASSERT_TRUE(proxy.Echo(EchoOf("alice")).ok());
  ASSERT_TRUE(proxy.Echo(EchoOf("alice")).ok());
  Status rejected;
  for (int i = 0; i < 5 && rejected.ok(); ++i) rejected = proxy.Echo(EchoOf("alice")).status();
  EXPECT_EQ(rejected.code(), StatusCode::RESOURCE_EXHAUSTED) << rejected;
  EXPECT_THAT(rejected.message(), AllOf(HasSubstr("payload 'alice' of ferry.demo.EchoService/Echo"),
                                        HasSubstr("1/s, burst 2")));
  // Another value has its own bucket; another method has no rule at all.
  EXPECT_TRUE(proxy.Echo(EchoOf("bob")).ok());
  EXPECT_TRUE(proxy.Delay(demo::DelayRequest()).ok());
}

TEST_F(RateLimitTest, AMisspeltFieldFailsItsMethodInsteadOfLimitingNothing) {
  StartServer(
      "[{name: ratelimit, per_field: {\"ferry.demo.EchoService/Echo\": "
      "{user_id: {rate: 100}}}}]");
  demo::EchoServiceProxy proxy = NewProxy();
  const auto result = proxy.Echo(EchoOf("x"));
  EXPECT_EQ(result.status().code(), StatusCode::FAILED_PRECONDITION) << result.status();
  EXPECT_THAT(result.status().message(),
              HasSubstr("per_field.ferry.demo.EchoService/Echo.user_id: the field does not exist "
                        "in ferry.demo.EchoRequest"));
}

// A public method limited per client address, and that method only: another address has a burst
// of its own, another method none of this limit.
TEST_F(RateLimitTest, PerPeerOfAMethodGivesEachClientAddressItsOwnBurstOfThatMethod) {
  trusted_proxies_ = {"127.0.0.1/32"};
  StartServer(
      "[{name: ratelimit, methods: {\"ferry.demo.EchoService/Echo\": "
      "{per_peer: {rate: 0.001, burst: 2}}}}]");
  const uint16_t port = server_->port();
  EXPECT_EQ(ForwardedFor(port, "203.0.113.7").status, 200);
  EXPECT_EQ(ForwardedFor(port, "203.0.113.7").status, 200);
  const http_test::RawResponse refused = ForwardedFor(port, "203.0.113.7");
  EXPECT_EQ(refused.status, 429);
  EXPECT_THAT(refused.body, AllOf(HasSubstr("rate limit of peer 203.0.113.7 for method "
                                            "ferry.demo.EchoService/Echo exceeded"),
                                  HasSubstr("0.001/s, burst 2")));
  EXPECT_EQ(ForwardedFor(port, "203.0.113.8").status, 200);
  EXPECT_EQ(ForwardedFor(port, "203.0.113.8").status, 200);
  EXPECT_EQ(ForwardedFor(port, "203.0.113.8").status, 429);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(ForwardedFor(port, "203.0.113.7", "Delay").status, 200);
  // Over Ferry's protocol the address is the connection's: every connection of a host shares it.
  demo::EchoServiceProxy first = NewProxy();
  ASSERT_TRUE(first.Echo(EchoOf("x")).ok());
  ASSERT_TRUE(NewProxy().Echo(EchoOf("x")).ok());
  const Status rejected = first.Echo(EchoOf("x")).status();
  EXPECT_EQ(rejected.code(), StatusCode::RESOURCE_EXHAUSTED) << rejected;
  EXPECT_THAT(rejected.message(),
              HasSubstr("rate limit of peer 127.0.0.1 for method ferry.demo.EchoService/Echo"));
  EXPECT_TRUE(first.Delay(demo::DelayRequest()).ok());
}

// An entry's rate and burst stay the method's bucket shared by every address; an address refused
// its own share takes nothing from it.
TEST_F(RateLimitTest, PerPeerOfAMethodComesOnTopOfItsSharedBucket) {
  trusted_proxies_ = {"127.0.0.1/32"};
  StartServer(
      "[{name: ratelimit, methods: {\"ferry.demo.EchoService/Echo\": "
      "{rate: 0.001, burst: 3, per_peer: {rate: 0.001, burst: 2}}}}]");
  const uint16_t port = server_->port();
  EXPECT_EQ(ForwardedFor(port, "203.0.113.7").status, 200);
  EXPECT_EQ(ForwardedFor(port, "203.0.113.7").status, 200);
  EXPECT_THAT(ForwardedFor(port, "203.0.113.7").body, HasSubstr("rate limit of peer 203.0.113.7"));
  EXPECT_EQ(ForwardedFor(port, "203.0.113.8").status, 200);  // the shared bucket's last token
  const http_test::RawResponse refused = ForwardedFor(port, "203.0.113.8");
  EXPECT_EQ(refused.status, 429);
  EXPECT_THAT(refused.body, AllOf(HasSubstr("rate limit of method ferry.demo.EchoService/Echo "
                                            "exceeded"),
                                  HasSubstr("0.001/s, burst 3")));
}

// An entry of per_peer alone adds to per_method: a per-address limit never lifts the method's.
TEST_F(RateLimitTest, PerPeerAloneKeepsTheDefaultPerMethodBucket) {
  StartServer(
      "[{name: ratelimit, per_method: {rate: 0.001, burst: 2}, methods: "
      "{\"ferry.demo.EchoService/Echo\": {per_peer: {rate: 0.001, burst: 5}}}}]");
  demo::EchoServiceProxy proxy = NewProxy();
  const Status rejected = CallUntilRejected(proxy, 5);
  EXPECT_EQ(rejected.code(), StatusCode::RESOURCE_EXHAUSTED) << rejected;
  EXPECT_THAT(rejected.message(),
              AllOf(HasSubstr("rate limit of method ferry.demo.EchoService/Echo exceeded"),
                    HasSubstr("burst 2")));
  EXPECT_EQ(service_.handled(), 2);
}

}  // namespace
}  // namespace ferry::plugins_test
