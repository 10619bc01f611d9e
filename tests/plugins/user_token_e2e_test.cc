#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "ferry/plugins/user_token.h"
#include "filter_fixture.h"

namespace ferry::plugins_test {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

int64_t NowS() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string TokenFor(const std::string& user, int64_t issued = NowS(),
                     int64_t expires = NowS() + 3600, const std::string& key_id = "default",
                     const std::string& secret = "u5er-s3cr3t") {
  return plugins::MakeUserToken(key_id, secret, user, issued, expires);
}

CallOptions Carrying(const std::string& token) {
  CallOptions options;
  options.attachments[std::string(plugins::kUserTokenAttachment)] = token;
  return options;
}

void ExpectUnauthenticated(const Status& status, const std::string& why) {
  EXPECT_EQ(status.code(), StatusCode::UNAUTHENTICATED) << status;
  EXPECT_THAT(status.message(),
              AllOf(HasSubstr("user_token: " + why), HasSubstr("for ferry.demo.EchoService/Echo")));
}

class UserTokenTest : public FilterFixture {
 protected:
  void SetUp() override {
    StartServer(
        "[{name: user_token, secret: u5er-s3cr3t, exempt: [\"ferry.demo.EchoService/Delay\"]}]");
  }
};

TEST_F(UserTokenTest, TheTokensUserReachesTheHandlerAsTheVerifiedUser) {
  demo::EchoServiceProxy proxy = NewProxy();
  const auto echoed = proxy.Echo(EchoOf("x"), Carrying(TokenFor("alice")));
  ASSERT_TRUE(echoed.ok()) << echoed.status();
  EXPECT_EQ(service_.last_verified_user(), "alice");
  EXPECT_EQ(service_.last_verified_caller(), "");  // a user is not a calling service
  // The same token serves every call until it expires: it names a user, not a request.
  ASSERT_TRUE(proxy.Echo(EchoOf("y"), Carrying(TokenFor("alice"))).ok());
}

TEST_F(UserTokenTest, ACallWithoutATokenIsRefused) {
  demo::EchoServiceProxy proxy = NewProxy();
  ExpectUnauthenticated(proxy.Echo(EchoOf("x")).status(), "missing user token");
  ExpectUnauthenticated(proxy.Echo(EchoOf("x"), Carrying("")).status(), "missing user token");
  EXPECT_EQ(service_.handled(), 0);
}

TEST_F(UserTokenTest, AnExemptMethodNeedsNoToken) {
  demo::EchoServiceProxy proxy = NewProxy();
  const auto delayed = proxy.Delay(demo::DelayRequest());
  ASSERT_TRUE(delayed.ok()) << delayed.status();
  EXPECT_EQ(service_.last_verified_user(), "");
}

TEST_F(UserTokenTest, MalformedTokensAreRefusedSayingSo) {
  demo::EchoServiceProxy proxy = NewProxy();
  const std::string good = TokenFor("alice");
  for (const std::string& bad :
       {std::string("alice"), "v3:" + good.substr(3), good + ":x", good.substr(0, good.size() - 1),
        "u1:default:al ice:1:2:" + good.substr(good.size() - 43),
        "u1:default:alice:-1:2:" + good.substr(good.size() - 43)}) {
    ExpectUnauthenticated(proxy.Echo(EchoOf("x"), Carrying(bad)).status(), "malformed user token");
  }
}

TEST_F(UserTokenTest, AnExpiredTokenIsRefusedSayingHowLongAgo) {
  demo::EchoServiceProxy proxy = NewProxy();
  const Status refused =
      proxy.Echo(EchoOf("x"), Carrying(TokenFor("alice", NowS() - 7200, NowS() - 100))).status();
  ExpectUnauthenticated(refused, "expired user token (expired at unix s ");
  EXPECT_THAT(refused.message(), HasSubstr(" s ago)"));
}

TEST_F(UserTokenTest, ATokenIssuedBeyondTheSkewInTheFutureIsRefused) {
  demo::EchoServiceProxy proxy = NewProxy();
  const Status refused =
      proxy.Echo(EchoOf("x"), Carrying(TokenFor("alice", NowS() + 600, NowS() + 3600))).status();
  ExpectUnauthenticated(refused, "user token from the future");
  EXPECT_THAT(refused.message(), HasSubstr("max skew 60 s"));
}

TEST_F(UserTokenTest, ForgedTokensAreRefused) {
  demo::EchoServiceProxy proxy = NewProxy();
  // Another secret.
  ExpectUnauthenticated(
      proxy
          .Echo(EchoOf("x"), Carrying(TokenFor("alice", NowS(), NowS() + 3600, "default", "guess")))
          .status(),
      "invalid user token signature");
  // Alice's token with its user changed to bob, or its expiry pushed out.
  const int64_t expires = NowS() + 3600;
  const std::string alice = TokenFor("alice", NowS(), expires);
  std::string as_bob = alice;
  as_bob.replace(as_bob.find(":alice:"), 7, ":bob:");
  ExpectUnauthenticated(proxy.Echo(EchoOf("x"), Carrying(as_bob)).status(),
                        "invalid user token signature");
  // Within max_ttl_s, so that only the signature can tell.
  const std::string expiry = ":" + std::to_string(expires) + ":";
  std::string longer = alice;
  longer.replace(longer.find(expiry), expiry.size(), ":" + std::to_string(expires + 60) + ":");
  ExpectUnauthenticated(proxy.Echo(EchoOf("x"), Carrying(longer)).status(),
                        "invalid user token signature");
  EXPECT_EQ(service_.handled(), 0);
}

TEST_F(UserTokenTest, AnUnknownKeyIdIsNamed) {
  demo::EchoServiceProxy proxy = NewProxy();
  ExpectUnauthenticated(
      proxy.Echo(EchoOf("x"), Carrying(TokenFor("alice", NowS(), NowS() + 60, "k9"))).status(),
      "unknown user token key id 'k9' for");
  // Which keys the server holds is not the caller's business.
  EXPECT_THAT(proxy.Echo(EchoOf("x"), Carrying(TokenFor("alice", NowS(), NowS() + 60, "k9")))
                  .status()
                  .message(),
              ::testing::Not(::testing::HasSubstr("default")));
}

TEST(UserTokenMakeTest, InvalidArgumentsMakeNoToken) {
  EXPECT_EQ(plugins::MakeUserToken("k1", "s", "", 1, 2), "");
  EXPECT_EQ(plugins::MakeUserToken("k1", "s", "a:b", 1, 2), "");
  EXPECT_EQ(plugins::MakeUserToken("k1", "s", std::string(129, 'a'), 1, 2), "");
  EXPECT_EQ(plugins::MakeUserToken("", "s", "alice", 1, 2), "");
  EXPECT_EQ(plugins::MakeUserToken("k1", "", "alice", 1, 2), "");
  EXPECT_EQ(plugins::MakeUserToken("k1", "s", "alice", 2, 2), "");
  EXPECT_THAT(plugins::MakeUserToken("k1", "s", "alice", 1, 2), HasSubstr("u1:k1:alice:1:2:"));
}

using UserTokenRotationTest = FilterFixture;

TEST_F(UserTokenRotationTest, EveryKeyTheServerHoldsVerifies) {
  StartServer("[{name: user_token, keys: [{id: old, secret: one}, {id: new, secret: two}]}]");
  demo::EchoServiceProxy proxy = NewProxy();
  EXPECT_TRUE(
      proxy.Echo(EchoOf("x"), Carrying(TokenFor("a", NowS(), NowS() + 60, "old", "one"))).ok());
  EXPECT_TRUE(
      proxy.Echo(EchoOf("x"), Carrying(TokenFor("b", NowS(), NowS() + 60, "new", "two"))).ok());
  EXPECT_EQ(service_.last_verified_user(), "b");
  // A key's token with the other key's secret.
  ExpectUnauthenticated(
      proxy.Echo(EchoOf("x"), Carrying(TokenFor("a", NowS(), NowS() + 60, "new", "one"))).status(),
      "invalid user token signature");
}

// Service-to-service `auth` and user tokens at once: the client's auth token signs the user
// token's attachment too, the server verifies both, and the handler sees the calling service
// and the user apart.
TEST_F(UserTokenRotationTest, AuthAndUserTokensTogether) {
  StartServer("[{name: auth, secret: s3cr3t}, {name: user_token, secret: u5er-s3cr3t}]");
  demo::EchoServiceProxy gateway = NewProxy("[{name: auth, secret: s3cr3t, caller: gateway}]");
  const auto echoed = gateway.Echo(EchoOf("x"), Carrying(TokenFor("alice")));
  ASSERT_TRUE(echoed.ok()) << echoed.status();
  EXPECT_EQ(service_.last_verified_caller(), "gateway");
  EXPECT_EQ(service_.last_verified_user(), "alice");
  ExpectUnauthenticated(gateway.Echo(EchoOf("x")).status(), "missing user token");
}

}  // namespace
}  // namespace ferry::plugins_test
