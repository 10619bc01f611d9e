#include "ferry/plugins/auth_token.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "legacy_auth_token.h"

namespace ferry::plugins {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using namespace std::chrono_literals;

constexpr std::string_view kService = "ferry.demo.EchoService";
constexpr std::string_view kNonce = "AAAAAAAAAAAAAAAA";
constexpr int64_t kNow = 1'700'000'000'000;
// An EchoRequest{payload: "hello"} as protobuf encodes it.
constexpr std::string_view kBody = "\x0a\x05hello";

const Attachments kAttachments = {{"user", "ann"}};

AuthRequest EchoRequest(std::string_view body = kBody, const Attachments* attachments = nullptr) {
  return AuthRequest{
      .service = kService, .method = "Echo", .body = body, .attachments = attachments};
}

std::string Token(const AuthRequest& request = EchoRequest(), int64_t unix_ms = kNow,
                  std::string_view secret = "s3cr3t", std::string_view key_id = "k1") {
  return MakeAuthToken(key_id, secret, request, "billing", unix_ms, kNonce);
}

Status Verify(std::string_view token, const AuthRequest& request = EchoRequest(),
              int64_t now = kNow, std::string* caller = nullptr) {
  return VerifyAuthToken("k1", "s3cr3t", token, request, now, 5s, caller);
}

void ExpectUnauthenticated(const Status& status, const std::string& why) {
  EXPECT_EQ(status.code(), StatusCode::UNAUTHENTICATED) << status;
  EXPECT_THAT(status.message(), HasSubstr(why));
}

TEST(AuthTokenTest, HasTheDocumentedShape) {
  EXPECT_THAT(Token(),
              MatchesRegex("v3:k1:1700000000000:AAAAAAAAAAAAAAAA:billing:[A-Za-z0-9_-]{22}"));
}

TEST(AuthTokenTest, SignsKeyTimeNonceCallerMethodAttachmentsAndBody) {
  // Independently computed:
  //   printf 'v3\nk1\n1700000000000\nAAAAAAAAAAAAAAAA\nbilling\nferry.demo.EchoService\nEcho\n1\n'
  //          '4:user3:ann\n\x0a\x05hello' |
  //     openssl dgst -sha256 -hmac s3cr3t -binary | head -c 16 | base64 | tr '+/' '-_' | tr -d =
  EXPECT_EQ(Token(EchoRequest(kBody, &kAttachments)),
            "v3:k1:1700000000000:AAAAAAAAAAAAAAAA:billing:decLjgWABRDiDtjlKJjOuA");
}

TEST(AuthTokenTest, FreshTokenVerifiesAndNamesItsCaller) {
  std::string caller;
  EXPECT_TRUE(Verify(Token(), EchoRequest(), kNow, &caller).ok());
  EXPECT_EQ(caller, "billing");
}

TEST(AuthTokenTest, TokenIsBoundToTheBody) {
  ExpectUnauthenticated(Verify(Token(), EchoRequest("\x0a\x04evil")), "invalid token signature");
  ExpectUnauthenticated(Verify(Token(), EchoRequest("")), "invalid token signature");
}

TEST(AuthTokenTest, TokenIsBoundToTheAttachments) {
  const Attachments other = {{"user", "bob"}};
  const std::string token = Token(EchoRequest(kBody, &kAttachments));
  EXPECT_TRUE(Verify(token, EchoRequest(kBody, &kAttachments)).ok());
  ExpectUnauthenticated(Verify(token, EchoRequest(kBody, &other)), "invalid token signature");
  ExpectUnauthenticated(Verify(token, EchoRequest(kBody)), "invalid token signature");
}

TEST(AuthTokenTest, TokenIsBoundToTheMethod) {
  AuthRequest delay = EchoRequest();
  delay.method = "Delay";
  ExpectUnauthenticated(Verify(Token(), delay), "invalid token signature");
}

TEST(AuthTokenTest, ChangingAnySignedFieldBreaksTheSignature) {
  const std::string token = Token();
  for (const auto& [from, to] : {std::pair<std::string, std::string>{":billing:", ":admin:"},
                                 {":AAAAAAAAAAAAAAAA:", ":AAAAAAAAAAAAAAAB:"},
                                 {":1700000000000:", ":1700000000001:"}}) {
    std::string changed = token;
    changed.replace(changed.find(from), from.size(), to);
    ExpectUnauthenticated(Verify(changed), "invalid token signature");
  }
}

TEST(AuthTokenTest, EachNonceMakesAnotherToken) {
  std::set<std::string> nonces;
  for (int i = 0; i < 1000; ++i) {
    const std::string nonce = NewAuthNonce();
    EXPECT_THAT(nonce, MatchesRegex("[A-Za-z0-9_-]{16}"));
    nonces.insert(nonce);
  }
  EXPECT_EQ(nonces.size(), 1000u);
  EXPECT_NE(MakeAuthToken("k1", "s3cr3t", EchoRequest(), "", kNow, NewAuthNonce()),
            MakeAuthToken("k1", "s3cr3t", EchoRequest(), "", kNow, NewAuthNonce()));
}

TEST(AuthTokenTest, ClockSkewUpToTheLimitIsAcceptedEitherWay) {
  EXPECT_TRUE(Verify(Token(), EchoRequest(), kNow + 5'000).ok());
  EXPECT_TRUE(Verify(Token(), EchoRequest(), kNow - 5'000).ok());
}

TEST(AuthTokenTest, TokenBeyondTheSkewSaysWhichWayTheClocksDiffer) {
  ExpectUnauthenticated(Verify(Token(), EchoRequest(), kNow + 5'001),
                        "expired token (issued at unix ms 1700000000000, server time "
                        "1700000005001: 5001 ms old, max skew 5000 ms");
  ExpectUnauthenticated(Verify(Token(), EchoRequest(), kNow - 5'001),
                        "token from the future (issued at unix ms 1700000000000, server time "
                        "1699999994999: 5001 ms ahead, max skew 5000 ms; the client's clock is "
                        "ahead)");
}

TEST(AuthTokenTest, WrongSecretOrKeyIsRejected) {
  ExpectUnauthenticated(Verify(Token(EchoRequest(), kNow, "guess")), "invalid token signature");
  ExpectUnauthenticated(Verify(Token(EchoRequest(), kNow, "s3cr3t", "k2")),
                        "token signed with key id 'k2', expected 'k1'");
}

TEST(AuthTokenTest, MissingTokenIsRejected) {
  ExpectUnauthenticated(Verify(""), "missing token for ferry.demo.EchoService/Echo");
}

TEST(AuthTokenTest, MalformedTokensAreRejected) {
  const std::string good = Token();
  const std::string signature = good.substr(good.rfind(':') + 1);
  for (const std::string& token :
       {std::string("garbage"), "v4:k1:1700000000000:AAAAAAAAAAAAAAAA:billing:" + signature,
        "v3:k1:17x0000000000:AAAAAAAAAAAAAAAA:billing:" + signature,
        "v3:k1:-1:AAAAAAAAAAAAAAAA:billing:" + signature,
        "v3::1700000000000:AAAAAAAAAAAAAAAA:billing:" + signature,
        "v3:k1:1700000000000:AAAA:billing:" + signature,
        "v3:k1:1700000000000:AAAAAAAAAAAAAAA=:billing:" + signature,
        "v3:k1:1700000000000:AAAAAAAAAAAAAAAA:bil\nling:" + signature,
        "v3:k1:1700000000000:AAAAAAAAAAAAAAAA:billing:" + signature.substr(1),
        "v3:k1:1700000000000:AAAAAAAAAAAAAAAA:billing:" + signature + ":x",
        std::string("v3:k1:1700000000000:AAAAAAAAAAAAAAAA:billing")}) {
    ExpectUnauthenticated(Verify(token), "malformed token");
  }
}

// Tokens of clients before v3: printf 'ferry.demo.EchoService\nEcho\n1700000000000' |
// openssl dgst -sha256 -hmac s3cr3t
constexpr std::string_view kV1Token =
    "v1:1700000000000:bf71dbd617cc676a7351dc1bdda67c182d8759e74159446dcaaf2b1e44aaa29e";

TEST(LegacyAuthTokenTest, V1AndV2TokensVerifyOnlyAsLegacyTokens) {
  EXPECT_TRUE(IsLegacyAuthToken(kV1Token));
  EXPECT_TRUE(VerifyLegacyAuthToken("s3cr3t", kV1Token, kService, "Echo", kNow, 30s).ok());
  // printf 'v2\nferry.demo.EchoService\nEcho\n1700000000000' |
  //   openssl dgst -sha256 -hmac s3cr3t -binary | head -c 16 | base64 | tr '+/' '-_' | tr -d =
  const std::string v2 = MakeV2AuthToken("s3cr3t", kService, "Echo", kNow);
  EXPECT_EQ(v2, "v2:1700000000000:SQNNLgkA6cmqXiDswDOVLA");
  EXPECT_TRUE(IsLegacyAuthToken(v2));
  EXPECT_TRUE(VerifyLegacyAuthToken("s3cr3t", v2, kService, "Echo", kNow, 30s).ok());
  EXPECT_EQ(VerifyLegacyAuthToken("guess", v2, kService, "Echo", kNow, 30s).code(),
            StatusCode::UNAUTHENTICATED);
  ExpectUnauthenticated(Verify(v2), "malformed token");
  EXPECT_FALSE(IsLegacyAuthToken(Token()));
}

}  // namespace
}  // namespace ferry::plugins
