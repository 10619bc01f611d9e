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
  EXPECT_THAT(token, MatchesRegex("v1:1700000000000:[0-9a-f]{64}"));
}

TEST(AuthTokenTest, SignsServiceMethodAndTimeWithHmacSha256) {
  // Independently computed: printf 'ferry.demo.EchoService\nEcho\n1700000000000' |
  //   openssl dgst -sha256 -hmac s3cr3t
  EXPECT_EQ(MakeAuthToken("s3cr3t", kService, kMethod, kNow),
            "v1:1700000000000:bf71dbd617cc676a7351dc1bdda67c182d8759e74159446dcaaf2b1e44aaa29e");
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
       {std::string("garbage"), "v2:1700000000000:" + signature, "v1:17x0000000000:" + signature,
        "v1::" + signature, "v1:1700000000000:" + signature.substr(1),
        "v1:1700000000000:" + signature + "0", std::string("v1:1700000000000")}) {
    ExpectUnauthenticated(Verify(token), "malformed token");
  }
}

}  // namespace
}  // namespace ferry::plugins
