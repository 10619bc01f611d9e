#include "ferry/plugins/auth_token.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "auth_token_fields.h"
#include "base64url.h"
#include "hmac_sha256_key.h"
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

AuthRequest EchoRequest(std::string_view body = kBody, const Attachments* attachments = nullptr,
                        RequestFraming framing = {}) {
  return AuthRequest{.service = kService,
                     .method = "Echo",
                     .body = body,
                     .attachments = attachments,
                     .framing = framing};
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
              MatchesRegex("v4:k1:1700000000000:AAAAAAAAAAAAAAAA:billing:0:[A-Za-z0-9_-]{22}"));
}

TEST(AuthTokenTest, SignsKeyTimeNonceCallerBudgetMethodFramingAttachmentsAndBody) {
  // Independently computed:
  //   printf 'v4\nk1\n1700000000000\nAAAAAAAAAAAAAAAA\nbilling\n250000\nferry.demo.EchoService\n'
  //          'Echo\n0\n0\n0\n16777216\n1\n4:user3:ann\n\x0a\x05hello' |
  //     openssl dgst -sha256 -hmac s3cr3t -binary | head -c 16 | base64 | tr '+/' '-_' | tr -d =
  EXPECT_EQ(Token(EchoRequest(kBody, &kAttachments, {.timeout_us = 250'000})),
            "v4:k1:1700000000000:AAAAAAAAAAAAAAAA:billing:250000:0BfgkcNEgV0xpNjcMXq2rQ");
}

// How the body is to be read, whether an answer is wanted and how large one the caller takes
// travel outside the signed bytes: a token for one way of reading them is refused for another.
TEST(AuthTokenTest, TokenIsBoundToHowTheRequestTravels) {
  const std::string token = Token();
  EXPECT_TRUE(Verify(token, EchoRequest(kBody, nullptr, {})).ok());
  for (const RequestFraming& other :
       {RequestFraming{.serializer = 1}, RequestFraming{.compression = 1},
        RequestFraming{.one_way = true}, RequestFraming{.max_response_bytes = 1024}}) {
    ExpectUnauthenticated(Verify(token, EchoRequest(kBody, nullptr, other)),
                          "invalid token signature");
  }
}

// Every attempt of a call carries what is left of its one budget: never more than was signed,
// and never no deadline when one was.
TEST(AuthTokenTest, TheRequestsTimeoutMustStayWithinTheSignedBudget) {
  const std::string token = Token(EchoRequest(kBody, nullptr, {.timeout_us = 250'000}));
  EXPECT_TRUE(Verify(token, EchoRequest(kBody, nullptr, {.timeout_us = 250'000})).ok());
  EXPECT_TRUE(Verify(token, EchoRequest(kBody, nullptr, {.timeout_us = 1})).ok());
  ExpectUnauthenticated(Verify(token, EchoRequest(kBody, nullptr, {.timeout_us = 250'001})),
                        "timeout beyond the token's budget (the request allows 250001 us, the "
                        "token signed 250000 us)");
  ExpectUnauthenticated(Verify(token, EchoRequest(kBody, nullptr, {.timeout_us = 0})),
                        "the request allows no deadline");
  // A budget is signed as it is: a token whose budget was raised does not verify.
  std::string raised = token;
  raised.replace(raised.find(":250000:"), 8, ":900000:");
  ExpectUnauthenticated(Verify(raised, EchoRequest(kBody, nullptr, {.timeout_us = 900'000})),
                        "invalid token signature");
  // Without a budget, any deadline: added on the way, it only shortens the call.
  EXPECT_TRUE(Verify(Token(), EchoRequest(kBody, nullptr, {.timeout_us = 5})).ok());
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
  // The refusal names the key the token says, never the one expected.
  const Status other_key = Verify(Token(EchoRequest(), kNow, "s3cr3t", "k2"));
  ExpectUnauthenticated(other_key, "unknown key id 'k2' for");
  EXPECT_THAT(other_key.message(), ::testing::Not(HasSubstr("k1")));
}

TEST(AuthTokenTest, MissingTokenIsRejected) {
  ExpectUnauthenticated(Verify(""), "missing token for ferry.demo.EchoService/Echo");
}

TEST(AuthTokenTest, MalformedTokensAreRejected) {
  const std::string good = Token();
  const std::string signature = good.substr(good.rfind(':') + 1);
  for (const std::string& token :
       {std::string("garbage"), "v5:k1:1700000000000:AAAAAAAAAAAAAAAA:billing:0:" + signature,
        "v4:k1:17x0000000000:AAAAAAAAAAAAAAAA:billing:0:" + signature,
        "v4:k1:-1:AAAAAAAAAAAAAAAA:billing:0:" + signature,
        "v4::1700000000000:AAAAAAAAAAAAAAAA:billing:0:" + signature,
        "v4:k1:1700000000000:AAAA:billing:0:" + signature,
        "v4:k1:1700000000000:AAAAAAAAAAAAAAA=:billing:0:" + signature,
        "v4:k1:1700000000000:AAAAAAAAAAAAAAAA:bil\nling:0:" + signature,
        "v4:k1:1700000000000:AAAAAAAAAAAAAAAA:billing:-1:" + signature,
        "v4:k1:1700000000000:AAAAAAAAAAAAAAAA:billing::" + signature,
        "v4:k1:1700000000000:AAAAAAAAAAAAAAAA:billing:" + signature,
        "v4:k1:1700000000000:AAAAAAAAAAAAAAAA:billing:0:" + signature.substr(1),
        "v4:k1:1700000000000:AAAAAAAAAAAAAAAA:billing:0:" + signature + ":x",
        std::string("v4:k1:1700000000000:AAAAAAAAAAAAAAAA:billing:0")}) {
    ExpectUnauthenticated(Verify(token), "malformed token");
  }
}

// A v3 token of the same call, which binds neither budget nor framing.
std::string V3Token(const AuthRequest& request) {
  const HmacSha256Key key("s3cr3t");
  const std::string time = std::to_string(kNow);
  AuthTokenFields fields{.version = 3,
                         .key_id = "k1",
                         .time = time,
                         .unix_ms = kNow,
                         .nonce = kNonce,
                         .caller = "billing"};
  const std::optional<Sha256Digest> mac = AuthTokenMac(key, fields, request);
  std::string signature(22, '\0');
  Base64UrlEncode(mac->data(), 16, signature.data());
  return "v3:k1:" + time + ":" + std::string(kNonce) + ":billing:" + signature;
}

TEST(AuthTokenTest, V3TokensStillVerifyAsBeforeButVerifyAuthTokenTakesOnlyV4) {
  // The v3 golden vector of the clients before v4:
  //   printf 'v3\nk1\n1700000000000\nAAAAAAAAAAAAAAAA\nbilling\nferry.demo.EchoService\nEcho\n1\n'
  //          '4:user3:ann\n\x0a\x05hello' |
  //     openssl dgst -sha256 -hmac s3cr3t -binary | head -c 16 | base64 | tr '+/' '-_' | tr -d =
  const AuthRequest request = EchoRequest(kBody, &kAttachments);
  const std::string v3 = V3Token(request);
  EXPECT_EQ(v3, "v3:k1:1700000000000:AAAAAAAAAAAAAAAA:billing:decLjgWABRDiDtjlKJjOuA");
  AuthTokenFields fields;
  ASSERT_TRUE(ParseAuthToken(v3, request, &fields).ok());
  EXPECT_EQ(fields.version, 3);
  EXPECT_TRUE(CheckAuthTokenSignature(AuthTokenMac(HmacSha256Key("s3cr3t"), fields, request),
                                      fields, request)
                  .ok());
  ExpectUnauthenticated(Verify(v3, request), "v3 token refused");
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
