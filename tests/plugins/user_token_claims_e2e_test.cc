// What a user token says besides its user: its lifetime, its audience, and whether it was
// revoked; and how a server treats the older tokens that say neither audience nor id.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "ferry/plugins/user_token.h"
#include "filter_fixture.h"

namespace ferry::plugins_test {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr std::string_view kSecret = "u5er-s3cr3t";

int64_t NowS() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string TokenFor(std::string_view user, std::string_view audience, std::string_view id,
                     int64_t issued = NowS(), int64_t lifetime_s = 600) {
  return plugins::MakeUserToken("default", kSecret,
                                {.user = user,
                                 .audience = audience,
                                 .token_id = id,
                                 .issued_unix_s = issued,
                                 .expires_unix_s = issued + lifetime_s});
}

CallOptions Carrying(const std::string& token) {
  CallOptions options;
  options.attachments[std::string(plugins::kUserTokenAttachment)] = token;
  return options;
}

Status EchoWith(demo::EchoServiceProxy& proxy, const std::string& token) {
  return proxy.Echo(EchoOf("x"), Carrying(token)).status();
}

void ExpectRefused(const Status& status, const std::string& why) {
  EXPECT_EQ(status.code(), StatusCode::UNAUTHENTICATED) << status;
  EXPECT_THAT(status.message(), AllOf(HasSubstr("user_token: "), HasSubstr(why)));
}

using UserTokenClaimsTest = FilterFixture;

TEST_F(UserTokenClaimsTest, ATokenLivingLongerThanMaxTtlIsRefusedThoughValidlySigned) {
  StartServer("[{name: user_token, secret: u5er-s3cr3t, max_ttl_s: 600}]");
  demo::EchoServiceProxy proxy = NewProxy();
  EXPECT_TRUE(EchoWith(proxy, TokenFor("alice", "echo", "t1", NowS(), 600)).ok());
  ExpectRefused(EchoWith(proxy, TokenFor("alice", "echo", "t2", NowS(), 601)),
                "user token lives too long (issued at unix s");
  // The old form is held to the same lifetime.
  ExpectRefused(
      EchoWith(proxy, plugins::MakeUserToken("default", kSecret, "alice", NowS(), NowS() + 3600)),
      "lives too long");
}

TEST_F(UserTokenClaimsTest, TheDefaultMaxTtlIsOneDay) {
  StartServer("[{name: user_token, secret: u5er-s3cr3t}]");
  demo::EchoServiceProxy proxy = NewProxy();
  EXPECT_TRUE(EchoWith(proxy, TokenFor("alice", "echo", "t1", NowS(), 24 * 3600)).ok());
  ExpectRefused(EchoWith(proxy, TokenFor("alice", "echo", "t2", NowS(), 24 * 3600 + 1)),
                "max_ttl_s 86400");
}

TEST_F(UserTokenClaimsTest, ATokenForAnotherServiceIsRefused) {
  StartServer("[{name: user_token, secret: u5er-s3cr3t, audience: echo}]");
  demo::EchoServiceProxy proxy = NewProxy();
  EXPECT_TRUE(EchoWith(proxy, TokenFor("alice", "echo", "t1")).ok());
  EXPECT_EQ(service_.last_verified_user(), "alice");
  ExpectRefused(EchoWith(proxy, TokenFor("alice", "seckill", "t1")),
                "user_token: user token for another service (audience 'seckill', this server is "
                "'echo')");
}

TEST_F(UserTokenClaimsTest, OldTokensAreRefusedWhereAnAudienceIsChecked) {
  StartServer("[{name: user_token, secret: u5er-s3cr3t, audience: echo}]");
  demo::EchoServiceProxy proxy = NewProxy();
  ExpectRefused(
      EchoWith(proxy, plugins::MakeUserToken("default", kSecret, "alice", NowS(), NowS() + 60)),
      "user_token: user token of the old form u1, which names no audience (this server is 'echo' "
      "and has "
      "v1_tokens: refuse)");
}

TEST_F(UserTokenClaimsTest, OldTokensAreAcceptedWhenSaidSo) {
  StartServer("[{name: user_token, secret: u5er-s3cr3t, audience: echo, v1_tokens: accept}]");
  demo::EchoServiceProxy proxy = NewProxy();
  EXPECT_TRUE(
      EchoWith(proxy, plugins::MakeUserToken("default", kSecret, "alice", NowS(), NowS() + 60))
          .ok());
  ExpectRefused(EchoWith(proxy, TokenFor("alice", "seckill", "t1")), "for another service");
}

TEST_F(UserTokenClaimsTest, WithoutAnAudienceEveryAudienceAndTheOldFormPass) {
  StartServer("[{name: user_token, secret: u5er-s3cr3t}]");
  demo::EchoServiceProxy proxy = NewProxy();
  EXPECT_TRUE(EchoWith(proxy, TokenFor("alice", "anything", "t1")).ok());
  EXPECT_TRUE(
      EchoWith(proxy, plugins::MakeUserToken("default", kSecret, "alice", NowS(), NowS() + 60))
          .ok());
}

TEST_F(UserTokenClaimsTest, TheAudienceAndIdAreSigned) {
  StartServer("[{name: user_token, secret: u5er-s3cr3t, audience: echo}]");
  demo::EchoServiceProxy proxy = NewProxy();
  std::string token = TokenFor("alice", "echn", "t1");
  token.replace(token.find(":echn:"), 6, ":echo:");
  ExpectRefused(EchoWith(proxy, token), "invalid user token signature");
}

TEST_F(UserTokenClaimsTest, RevokedTokensAreRefusedByIdOrByUserAndIssueTime) {
  const int64_t cutoff = NowS() - 100;
  StartServer(
      "[{name: user_token, secret: u5er-s3cr3t, revocations: {kind: memory, token_ids: "
      "[stolen-1], users_before: {mallory: " +
      std::to_string(cutoff) + "}}}]");
  demo::EchoServiceProxy proxy = NewProxy();
  ExpectRefused(EchoWith(proxy, TokenFor("alice", "echo", "stolen-1")),
                "revoked user token (id 'stolen-1')");
  EXPECT_TRUE(EchoWith(proxy, TokenFor("alice", "echo", "fresh-1")).ok());
  ExpectRefused(EchoWith(proxy, TokenFor("mallory", "echo", "m1", cutoff - 1)),
                "revoked user token (id 'm1')");
  ExpectRefused(EchoWith(proxy, plugins::MakeUserToken("default", kSecret, "mallory", cutoff - 1,
                                                       cutoff + 600)),
                "revoked user token (of user 'mallory')");
  // Tokens issued since (a new login) pass.
  EXPECT_TRUE(EchoWith(proxy, TokenFor("mallory", "echo", "m2", cutoff)).ok());
}

TEST_F(UserTokenClaimsTest, AForgedTokenIsRefusedForItsSignatureNotLookedUp) {
  StartServer(
      "[{name: user_token, secret: u5er-s3cr3t, revocations: {kind: memory, token_ids: "
      "[stolen-1]}}]");
  demo::EchoServiceProxy proxy = NewProxy();
  const std::string forged = plugins::MakeUserToken("default", "guessed",
                                                    {.user = "alice",
                                                     .audience = "echo",
                                                     .token_id = "stolen-1",
                                                     .issued_unix_s = NowS(),
                                                     .expires_unix_s = NowS() + 60});
  ExpectRefused(EchoWith(proxy, forged), "invalid user token signature");
}

TEST(UserTokenClaims, MakeUserTokenRefusesWhatATokenCannotCarry) {
  const auto make = [](std::string_view audience, std::string_view id) {
    return plugins::MakeUserToken("k1", "s",
                                  {.user = "alice",
                                   .audience = audience,
                                   .token_id = id,
                                   .issued_unix_s = 1,
                                   .expires_unix_s = 2});
  };
  EXPECT_EQ(make("", "t1"), "");
  EXPECT_EQ(make("a:b", "t1"), "");
  EXPECT_EQ(make("echo", ""), "");
  EXPECT_EQ(make("echo", std::string(65, 't')), "");
  EXPECT_THAT(make("echo", "t1"), HasSubstr("u2:k1:alice:echo:t1:1:2:"));
}

// Roles are signed into the token (u3), in byte order and once each, so that a set of roles has
// one token only.
TEST(UserTokenClaims, RolesMakeAU3TokenThatSignsThem) {
  const auto make = [](std::vector<std::string_view> roles) {
    return plugins::MakeUserToken("k1", "s",
                                  {.user = "alice",
                                   .audience = "echo",
                                   .token_id = "t1",
                                   .issued_unix_s = 1,
                                   .expires_unix_s = 2,
                                   .roles = std::move(roles)});
  };
  // printf 'u3\nk1\nalice\necho\nt1\nauditor,operator\n1\n2' |
  //   openssl dgst -sha256 -hmac s -binary | base64 | tr '+/' '-_' | tr -d =
  EXPECT_EQ(make({"operator", "auditor", "operator"}),
            "u3:k1:alice:echo:t1:auditor,operator:1:2:v_AJqPg6rwBXAn79BqVUiAf40Z2BSpZlcKnqaShG6YI");
  EXPECT_EQ(make({"ops team"}), "");
  EXPECT_EQ(make({""}), "");
  EXPECT_EQ(make({"a,b"}), "");
  EXPECT_EQ(make(std::vector<std::string_view>(17, "r")).find("u3:"), 0u) << "one role, once";
  std::vector<std::string> many;
  for (int i = 0; i < 17; ++i) many.push_back("r" + std::to_string(i));
  EXPECT_EQ(make({many.begin(), many.end()}), "");
  EXPECT_THAT(make({}), HasSubstr("u2:k1:alice:echo:t1:1:2:"));
}

TEST_F(UserTokenClaimsTest, TheRolesOfAVerifiedTokenReachTheContextAndAreSigned) {
  StartServer("[{name: user_token, secret: u5er-s3cr3t, audience: echo, max_ttl_s: 600}]");
  demo::EchoServiceProxy proxy = NewProxy();
  const auto with_roles = [](std::vector<std::string_view> roles, int64_t lifetime_s = 600) {
    return plugins::MakeUserToken("default", kSecret,
                                  {.user = "ann",
                                   .audience = "echo",
                                   .token_id = "t1",
                                   .issued_unix_s = NowS(),
                                   .expires_unix_s = NowS() + lifetime_s,
                                   .roles = std::move(roles)});
  };
  ASSERT_TRUE(EchoWith(proxy, with_roles({"operator"})).ok());
  EXPECT_EQ(service_.last_verified_user(), "ann");
  EXPECT_THAT(service_.last_verified_roles(), ::testing::ElementsAre("operator"));
  ASSERT_TRUE(EchoWith(proxy, with_roles({})).ok());
  EXPECT_THAT(service_.last_verified_roles(), ::testing::IsEmpty());
  std::string raised = with_roles({"auditor"});
  raised.replace(raised.find(":auditor:"), 9, ":operator:");
  ExpectRefused(EchoWith(proxy, raised), "invalid user token signature");
  // A token with roles is held to the same lifetime and audience as any.
  ExpectRefused(EchoWith(proxy, with_roles({"operator"}, 601)), "user token lives too long");
  ExpectRefused(EchoWith(proxy, plugins::MakeUserToken("default", kSecret,
                                                       {.user = "ann",
                                                        .audience = "like",
                                                        .token_id = "t1",
                                                        .issued_unix_s = NowS(),
                                                        .expires_unix_s = NowS() + 60,
                                                        .roles = {"operator"}})),
                "user token for another service");
}

TEST(UserTokenClaims, NewTokenIdsAreRandomWordsOfSixteenCharacters) {
  const std::string a = plugins::NewUserTokenId();
  const std::string b = plugins::NewUserTokenId();
  EXPECT_EQ(a.size(), 16u);
  EXPECT_NE(a, b);
  EXPECT_EQ(a.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
            std::string::npos);
}

}  // namespace
}  // namespace ferry::plugins_test
