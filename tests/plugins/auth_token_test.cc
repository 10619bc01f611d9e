#include "ferry/plugins/auth_token.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ferry::plugins {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using namespace std::chrono_literals;

constexpr std::string_view kService = "ferry.demo.EchoService";
constexpr std::string_view kMethod = "Echo";
constexpr int64_t kNow = 1'700'000'000'000;

Status Verify(std::string_view token, int64_t now = kNow, std::string_view secret = "s3cr3t",
              std::string_view method = kMethod) {
  return VerifyAuthToken(secret, token, kService, method, now, 30s);
}

void ExpectUnauthenticated(const Status& status, const std::string& why) {
  EXPECT_EQ(status.code(), StatusCode::UNAUTHENTICATED) << status;
  EXPECT_THAT(status.message(), HasSubstr(why));
}

TEST(AuthTokenTest, HasTheDocumentedShape) {
  const std::string token = MakeAuthToken("s3cr3t", kService, kMethod, kNow);
  EXPECT_THAT(token, MatchesRegex("v2:1700000000000:[A-Za-z0-9_-]{22}"));
  EXPECT_EQ(token.size(), 39u);
}

TEST(AuthTokenTest, SignsVersionServiceMethodAndTimeWithTruncatedHmacSha256) {
  // Independently computed:
  //   printf 'v2\nferry.demo.EchoService\nEcho\n1700000000000' |
  //     openssl dgst -sha256 -hmac s3cr3t -binary | head -c 16 | base64 | tr '+/' '-_' | tr -d =
  EXPECT_EQ(MakeAuthToken("s3cr3t", kService, kMethod, kNow),
            "v2:1700000000000:SQNNLgkA6cmqXiDswDOVLA");
}

// Tokens of clients built before v2: printf 'ferry.demo.EchoService\nEcho\n1700000000000' |
// openssl dgst -sha256 -hmac s3cr3t
constexpr std::string_view kV1Token =
    "v1:1700000000000:bf71dbd617cc676a7351dc1bdda67c182d8759e74159446dcaaf2b1e44aaa29e";

TEST(AuthTokenTest, V1TokensOfEarlierClientsStillVerify) {
  EXPECT_TRUE(Verify(kV1Token).ok());
  ExpectUnauthenticated(Verify(kV1Token, kNow, "guess"), "invalid token signature");
  ExpectUnauthenticated(Verify(kV1Token, kNow + 31'000), "expired token");
}

// v2 signs its version: v1's signature, truncated and re-encoded as v2 (printf
// 'ferry.demo.EchoService\nEcho\n1700000000000' | openssl dgst -sha256 -hmac s3cr3t -binary |
// head -c 16 | base64 | tr '+/' '-_' | tr -d =), is no v2 token.
TEST(AuthTokenTest, VersionsDoNotShareSignatures) {
  ExpectUnauthenticated(Verify("v2:1700000000000:v3Hb1hfMZ2pzUdwb3aZ8GA"),
                        "invalid token signature");
}

TEST(AuthTokenTest, FreshTokenVerifies) {
  EXPECT_TRUE(Verify(MakeAuthToken("s3cr3t", kService, kMethod, kNow)).ok());
}

TEST(AuthTokenTest, ClockSkewUpToTheLimitIsAcceptedEitherWay) {
  const std::string token = MakeAuthToken("s3cr3t", kService, kMethod, kNow);
  EXPECT_TRUE(Verify(token, kNow + 30'000).ok());
  EXPECT_TRUE(Verify(token, kNow - 30'000).ok());
}

TEST(AuthTokenTest, TokenBeyondTheSkewHasExpired) {
  const std::string token = MakeAuthToken("s3cr3t", kService, kMethod, kNow);
  ExpectUnauthenticated(Verify(token, kNow + 30'001), "expired token");
  ExpectUnauthenticated(Verify(token, kNow - 30'001), "expired token");
}

TEST(AuthTokenTest, WrongSecretIsRejected) {
  ExpectUnauthenticated(Verify(MakeAuthToken("guess", kService, kMethod, kNow)),
                        "invalid token signature");
}

TEST(AuthTokenTest, TokenForAnotherMethodIsRejected) {
  ExpectUnauthenticated(Verify(MakeAuthToken("s3cr3t", kService, "Delay", kNow)),
                        "made for another method) for ferry.demo.EchoService/Echo");
}

TEST(AuthTokenTest, ChangedTimestampBreaksTheSignature) {
  std::string token = MakeAuthToken("s3cr3t", kService, kMethod, kNow);
  token.replace(3, 13, "1700000000001");
  ExpectUnauthenticated(Verify(token), "invalid token signature");
}

TEST(AuthTokenTest, MissingTokenIsRejected) {
  ExpectUnauthenticated(Verify(""), "missing token for ferry.demo.EchoService/Echo");
}

TEST(AuthTokenTest, MalformedTokensAreRejected) {
  const std::string good = MakeAuthToken("s3cr3t", kService, kMethod, kNow);
  const std::string signature = good.substr(good.rfind(':') + 1);
  for (const std::string& token :
       {std::string("garbage"), "v3:1700000000000:" + signature, "v2:17x0000000000:" + signature,
        "v2::" + signature, "v2:1700000000000:" + signature.substr(1),
        "v2:1700000000000:" + signature + "0", std::string("v2:1700000000000"),
        "v1:1700000000000:" + signature}) {
    ExpectUnauthenticated(Verify(token), "malformed token");
  }
}

}  // namespace
}  // namespace ferry::plugins
