#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "auth_token_fields.h"
#include "base64url.h"
#include "ferry/plugins/auth_token.h"
#include "filter_fixture.h"
#include "hmac_sha256_key.h"
#include "legacy_auth_token.h"
#include "metric_value.h"

namespace ferry::plugins_test {
namespace {

using ::testing::HasSubstr;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// A token for Echo of `request` as a client would send it (its body as the channel encodes it,
// with no budget, so that any timeout goes), made by hand so that a test can send it as often
// and with whatever body it likes.
CallOptions SignedEcho(const demo::EchoRequest& request, int64_t unix_ms = NowMs(),
                       std::string_view key_id = "default", std::string_view secret = "s3cr3t",
                       RequestFraming framing = {}) {
  const std::string body = request.SerializeAsString();
  CallOptions options;
  options.auth_token = plugins::MakeAuthToken(
      key_id, secret,
      plugins::AuthRequest{
          .service = "ferry.demo.EchoService", .method = "Echo", .body = body, .framing = framing},
      "", unix_ms, plugins::NewAuthNonce());
  return options;
}

void ExpectRefused(const Result<demo::EchoResponse>& result, StatusCode code,
                   const std::string& why) {
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), code) << result.status();
  EXPECT_THAT(result.status().message(), HasSubstr(why));
}

void ExpectUnauthenticated(const Result<demo::EchoResponse>& result, const std::string& why) {
  ExpectRefused(result, StatusCode::UNAUTHENTICATED, why);
}

class AuthTest : public FilterFixture {
 protected:
  // The default skew, 5 s.
  void SetUp() override { StartServer("[{name: auth, secret: s3cr3t}]"); }
};

TEST_F(AuthTest, CallerWithTheSecretIsServedAndItsSignedIdentityReachesTheHandler) {
  demo::EchoServiceProxy proxy = NewProxy("[{name: auth, secret: s3cr3t, caller: billing}]");
  const auto echoed = proxy.Echo(EchoOf("hello"));
  ASSERT_TRUE(echoed.ok()) << echoed.status();
  EXPECT_EQ(echoed->payload(), "hello");
  EXPECT_EQ(service_.last_verified_caller(), "billing");
  demo::DelayRequest delay;  // a pool method, not only an inline one
  delay.set_payload("slow");
  const auto delayed = proxy.Delay(delay);
  ASSERT_TRUE(delayed.ok()) << delayed.status();
  EXPECT_EQ(service_.handled(), 2);
}

// The token signs the body's bytes as they travel: compressed ones too, checked before they are
// decompressed.
TEST_F(AuthTest, ACompressedBodyIsSignedAsItTravels) {
  ClientOptions options;
  options.target = "127.0.0.1:" + std::to_string(server_->port());
  options.filters = Filters("client", "[{name: auth, secret: s3cr3t}]");
  options.compression = "zstd";
  options.compress_threshold = 0;
  std::shared_ptr<Channel> channel;
  ASSERT_TRUE(NewChannel(options, &channel).ok());
  demo::EchoServiceProxy proxy(std::move(channel));
  const auto echoed = proxy.Echo(EchoOf(std::string(10000, 'z')));
  ASSERT_TRUE(echoed.ok()) << echoed.status();
  EXPECT_EQ(echoed->payload().size(), 10000u);
}

TEST_F(AuthTest, ManyConcurrentCallsAreNeverMistakenForReplays) {
  demo::EchoServiceProxy proxy = NewProxy("[{name: auth, secret: s3cr3t}]");
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) failures += proxy.Echo(EchoOf("same")).ok() ? 0 : 1;
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(service_.handled(), 800);
}

TEST_F(AuthTest, WrongSecretIsUnauthenticated) {
  ExpectUnauthenticated(NewProxy("[{name: auth, secret: guess}]").Echo(EchoOf("x")),
                        "auth: invalid token signature");
  EXPECT_EQ(service_.handled(), 0);
}

TEST_F(AuthTest, MissingTokenIsUnauthenticated) {
  ExpectUnauthenticated(NewProxy().Echo(EchoOf("x")),
                        "auth: missing token for ferry.demo.EchoService/Echo");
  EXPECT_EQ(service_.handled(), 0);
}

TEST_F(AuthTest, ACapturedTokenDoesNotCarryAnotherBody) {
  demo::EchoServiceProxy proxy = NewProxy();
  const CallOptions captured = SignedEcho(EchoOf("pay 10 to ann"));
  ExpectUnauthenticated(proxy.Echo(EchoOf("pay 1000 to eve"), captured), "invalid token signature");
  EXPECT_EQ(service_.handled(), 0);
}

TEST_F(AuthTest, TheSameRequestSentTwiceIsRefusedTheSecondTime) {
  demo::EchoServiceProxy proxy = NewProxy();
  const CallOptions captured = SignedEcho(EchoOf("pay 10 to ann"));
  ASSERT_TRUE(proxy.Echo(EchoOf("pay 10 to ann"), captured).ok());
  ExpectUnauthenticated(proxy.Echo(EchoOf("pay 10 to ann"), captured),
                        "auth: replayed token (accepted once already within the 5000 ms skew "
                        "window");
  // From another connection too: the cache is the server's.
  ExpectUnauthenticated(NewProxy().Echo(EchoOf("pay 10 to ann"), captured), "replayed token");
  EXPECT_EQ(service_.handled(), 1);
}

TEST_F(AuthTest, ATokenOutsideTheDefaultSkewOfFiveSecondsIsRefused) {
  ExpectUnauthenticated(NewProxy().Echo(EchoOf("x"), SignedEcho(EchoOf("x"), NowMs() - 6000)),
                        "expired token");
  ExpectUnauthenticated(NewProxy().Echo(EchoOf("x"), SignedEcho(EchoOf("x"), NowMs() + 6000)),
                        "token from the future");
  EXPECT_TRUE(NewProxy().Echo(EchoOf("x"), SignedEcho(EchoOf("x"), NowMs() + 3000)).ok());
}

// The replay cache starts empty: a token from before the start, within the skew, may have been
// accepted by the server's previous run, and is refused rather than accepted a second time.
TEST_F(AuthTest, ATokenAcceptedBeforeARestartIsRefusedAfterIt) {
  const int64_t issued_ms = NowMs();
  const CallOptions captured = SignedEcho(EchoOf("pay 10 to ann"), issued_ms);
  ASSERT_TRUE(NewProxy().Echo(EchoOf("pay 10 to ann"), captured).ok());
  server_->Stop();
  // The next start is in a later millisecond than the token, as any restart of a process is.
  while (NowMs() <= issued_ms) std::this_thread::yield();
  const double before = MetricValue("ferry_auth_replay_refusals_total{reason=\"before_start\"}");
  StartServer("[{name: auth, secret: s3cr3t}]");
  ExpectUnauthenticated(NewProxy().Echo(EchoOf("pay 10 to ann"), captured),
                        "auth: token issued before this server started");
  EXPECT_EQ(MetricValue("ferry_auth_replay_refusals_total{reason=\"before_start\"}"), before + 1);
  // Within the skew, but before the start, is before the start too.
  ExpectUnauthenticated(NewProxy().Echo(EchoOf("x"), SignedEcho(EchoOf("x"), NowMs() - 3000)),
                        "token issued before this server started");
  EXPECT_EQ(service_.handled(), 1);
  EXPECT_TRUE(NewProxy("[{name: auth, secret: s3cr3t}]").Echo(EchoOf("x")).ok());
}

// The server takes the frame's timeout, serializer, compression, one-way flag and response
// limit as they came and checks them against the token.
TEST_F(AuthTest, TheTokenBindsTheCallsBudgetAndHowItsBodyIsRead) {
  demo::EchoServiceProxy proxy = NewProxy();
  CallOptions budget =
      SignedEcho(EchoOf("x"), NowMs(), "default", "s3cr3t", {.timeout_us = 200'000});
  budget.timeout = std::chrono::milliseconds(5000);
  ExpectUnauthenticated(proxy.Echo(EchoOf("x"), budget),
                        "timeout beyond the token's budget (the request allows 5000000 us, the "
                        "token signed 200000 us)");
  CallOptions within =
      SignedEcho(EchoOf("x"), NowMs(), "default", "s3cr3t", {.timeout_us = 200'000});
  within.timeout = std::chrono::milliseconds(150);
  EXPECT_TRUE(proxy.Echo(EchoOf("x"), within).ok());
  // Signed for the JSON serializer, sent as protobuf: the same bytes, read another way.
  ExpectUnauthenticated(proxy.Echo(EchoOf("x"), SignedEcho(EchoOf("x"), NowMs(), "default",
                                                           "s3cr3t", {.serializer = 1})),
                        "invalid token signature");
  // Signed for a caller who reads answers of up to 1 KiB, sent by one who reads 16 MiB.
  ExpectUnauthenticated(proxy.Echo(EchoOf("x"), SignedEcho(EchoOf("x"), NowMs(), "default",
                                                           "s3cr3t", {.max_response_bytes = 1024})),
                        "invalid token signature");
  EXPECT_EQ(service_.handled(), 1);
}

// What the client filter signs is what its channel sends: a JSON body, a timeout of its own, a
// smaller response limit.
TEST_F(AuthTest, AClientSignsTheFramingItsChannelSends) {
  ClientOptions options;
  options.target = "127.0.0.1:" + std::to_string(server_->port());
  options.filters = Filters("client", "[{name: auth, secret: s3cr3t}]");
  options.serializer = "json";
  options.max_frame_bytes = 1 << 20;
  options.default_timeout = std::chrono::milliseconds(3000);
  std::shared_ptr<Channel> channel;
  ASSERT_TRUE(NewChannel(options, &channel).ok());
  demo::EchoServiceProxy proxy(std::move(channel));
  const auto echoed = proxy.Echo(EchoOf("json"));
  ASSERT_TRUE(echoed.ok()) << echoed.status();
  CallOptions shorter;
  shorter.timeout = std::chrono::milliseconds(700);
  EXPECT_TRUE(proxy.Echo(EchoOf("json"), shorter).ok());
}

// A v3 token of the same call, as clients before v4 made them.
CallOptions V3Echo(const demo::EchoRequest& request) {
  const std::string body = request.SerializeAsString();
  const std::string time = std::to_string(NowMs());
  const std::string nonce = plugins::NewAuthNonce();
  const plugins::AuthRequest signed_request{
      .service = "ferry.demo.EchoService", .method = "Echo", .body = body};
  const plugins::AuthTokenFields fields{
      .version = 3, .key_id = "default", .time = time, .unix_ms = NowMs(), .nonce = nonce};
  const plugins::HmacSha256Key key("s3cr3t");
  const std::optional<plugins::Sha256Digest> mac =
      plugins::AuthTokenMac(key, fields, signed_request);
  std::string signature(22, '\0');
  plugins::Base64UrlEncode(mac->data(), 16, signature.data());
  CallOptions options;
  options.auth_token = "v3:default:" + time + ":" + nonce + "::" + signature;
  return options;
}

TEST_F(AuthTest, V3TokensAreRefusedByDefault) {
  ExpectUnauthenticated(NewProxy().Echo(EchoOf("x"), V3Echo(EchoOf("x"))),
                        "auth: v3 token refused (it binds neither the call's timeout nor how its "
                        "body is encoded, its one-way flag or its response limit)");
  EXPECT_EQ(service_.handled(), 0);
}

TEST_F(AuthTest, TokenOfAnotherMethodIsUnauthenticated) {
  CallOptions options;
  options.auth_token = plugins::MakeAuthToken(
      "default", "s3cr3t",
      plugins::AuthRequest{.service = "ferry.demo.EchoService", .method = "Delay", .body = ""}, "",
      NowMs(), plugins::NewAuthNonce());
  ExpectUnauthenticated(NewProxy().Echo(demo::EchoRequest(), options), "invalid token signature");
}

TEST_F(AuthTest, ReplayableV2TokensAreRefusedByDefault) {
  CallOptions options;
  options.auth_token =
      plugins::MakeV2AuthToken("s3cr3t", "ferry.demo.EchoService", "Echo", NowMs());
  ExpectUnauthenticated(NewProxy().Echo(EchoOf("x"), options),
                        "replayable v2 token refused (it binds neither the request nor a nonce)");
  EXPECT_EQ(service_.handled(), 0);
}

// Servers configured per test.
using AuthConfiguredTest = FilterFixture;

// Public and operator methods on one server: Delay is public, everything else needs a token.
class AuthExemptTest : public FilterFixture {
 protected:
  void SetUp() override {
    StartServer("[{name: auth, secret: s3cr3t, exempt: [\"ferry.demo.EchoService/Delay\"]}]");
  }
};

TEST_F(AuthExemptTest, AnExemptMethodAnswersWithoutATokenAndHasNoVerifiedCaller) {
  const auto delayed = NewProxy().Delay(demo::DelayRequest());
  ASSERT_TRUE(delayed.ok()) << delayed.status();
  EXPECT_EQ(service_.handled(), 1);
  // A token sent anyway is not read: nothing verified the caller it names.
  const auto signed_delay =
      NewProxy("[{name: auth, secret: s3cr3t, caller: billing}]").Delay(demo::DelayRequest());
  ASSERT_TRUE(signed_delay.ok()) << signed_delay.status();
  EXPECT_EQ(service_.last_verified_caller(), "");
}

TEST_F(AuthExemptTest, AMethodNotExemptNeedsAValidToken) {
  ExpectUnauthenticated(NewProxy().Echo(EchoOf("x")),
                        "auth: missing token for ferry.demo.EchoService/Echo");
  ExpectUnauthenticated(NewProxy("[{name: auth, secret: guess}]").Echo(EchoOf("x")),
                        "auth: invalid token signature");
  EXPECT_EQ(service_.handled(), 0);
  const auto echoed = NewProxy("[{name: auth, secret: s3cr3t, caller: ops}]").Echo(EchoOf("x"));
  ASSERT_TRUE(echoed.ok()) << echoed.status();
  EXPECT_EQ(service_.last_verified_caller(), "ops");
}

// Deny by default: only a method named exactly is exempt, so a method a service gains later, or a
// near miss of a name, is guarded.
TEST_F(AuthConfiguredTest, OnlyAMethodNamedInFullIsExempt) {
  StartServer(
      "[{name: auth, secret: s3cr3t, exempt: [\"ferry.demo.EchoService/echo\", "
      "\"ferry.demo.EchoService/Ech\", \"demo.EchoService/Echo\", "
      "\"ferry.demo.EchoService/Echo2\", \"ferry.demo.EchoService/Delay\"]}]");
  ExpectUnauthenticated(NewProxy().Echo(EchoOf("x")),
                        "auth: missing token for ferry.demo.EchoService/Echo");
  EXPECT_TRUE(NewProxy().Delay(demo::DelayRequest()).ok());
}

TEST_F(AuthConfiguredTest, ReplayableTokensAreAcceptedOnlyWhenAskedFor) {
  StartServer("[{name: auth, secret: s3cr3t, accept_replayable_tokens: true}]");
  CallOptions options;
  options.auth_token =
      plugins::MakeV2AuthToken("s3cr3t", "ferry.demo.EchoService", "Echo", NowMs());
  demo::EchoServiceProxy proxy = NewProxy();
  EXPECT_TRUE(proxy.Echo(EchoOf("x"), options).ok());
  EXPECT_TRUE(proxy.Echo(EchoOf("x"), options).ok()) << "as replayable as it ever was";
  EXPECT_TRUE(NewProxy("[{name: auth, secret: s3cr3t}]").Echo(EchoOf("x")).ok());
}

// Rotation without a flag day: servers take both keys while clients move from one to the other.
TEST_F(AuthConfiguredTest, ATokenOfAnOldKeyWorksWhileBothAreHeldAndFailsOnceItIsRemoved) {
  StartServer("[{name: auth, keys: [{id: k1, secret: old}, {id: k2, secret: n3w}]}]");
  demo::EchoServiceProxy old_client = NewProxy("[{name: auth, keys: [{id: k1, secret: old}]}]");
  demo::EchoServiceProxy new_client = NewProxy("[{name: auth, keys: [{id: k2, secret: n3w}]}]");
  EXPECT_TRUE(old_client.Echo(EchoOf("x")).ok());
  EXPECT_TRUE(new_client.Echo(EchoOf("x")).ok());
  server_->Stop();
  StartServer("[{name: auth, keys: [{id: k2, secret: n3w}]}]");
  old_client = NewProxy("[{name: auth, keys: [{id: k1, secret: old}]}]");
  new_client = NewProxy("[{name: auth, keys: [{id: k2, secret: n3w}]}]");
  // The refusal names the key the token says, never those the server holds.
  const Status unknown = old_client.Echo(EchoOf("x")).status();
  EXPECT_EQ(unknown.code(), StatusCode::UNAUTHENTICATED) << unknown;
  EXPECT_THAT(unknown.message(), HasSubstr("auth: unknown key id 'k1' for"));
  EXPECT_THAT(unknown.message(), ::testing::Not(HasSubstr("k2")));
  EXPECT_TRUE(new_client.Echo(EchoOf("x")).ok());
}

TEST_F(AuthConfiguredTest, V3TokensAreAcceptedWhileMigratingWhenAskedFor) {
  StartServer("[{name: auth, secret: s3cr3t, v3_tokens: accept}]");
  const CallOptions v3 = V3Echo(EchoOf("x"));
  EXPECT_TRUE(NewProxy().Echo(EchoOf("x"), v3).ok());
  ExpectUnauthenticated(NewProxy().Echo(EchoOf("x"), v3), "replayed token");
  EXPECT_TRUE(NewProxy("[{name: auth, secret: s3cr3t}]").Echo(EchoOf("x")).ok());
}

// An optional token: a call without one passes with no verified caller; one that comes is
// checked like any other.
TEST_F(AuthConfiguredTest, AnOptionalMethodTakesCallsWithoutATokenButChecksOneThatComes) {
  StartServer("[{name: auth, secret: s3cr3t, optional: [\"ferry.demo.EchoService/Echo\"]}]");
  ASSERT_TRUE(NewProxy().Echo(EchoOf("x")).ok());
  EXPECT_EQ(service_.last_verified_caller(), "");
  ExpectUnauthenticated(NewProxy("[{name: auth, secret: guess}]").Echo(EchoOf("x")),
                        "invalid token signature");
  ASSERT_TRUE(NewProxy("[{name: auth, secret: s3cr3t, caller: ops}]").Echo(EchoOf("x")).ok());
  EXPECT_EQ(service_.last_verified_caller(), "ops");
  ExpectUnauthenticated(NewProxy().Delay(demo::DelayRequest()), "auth: missing token");
}

TEST_F(AuthConfiguredTest, AFullReplayCacheFailsClosed) {
  StartServer("[{name: auth, secret: s3cr3t, replay_cache_entries: 2}]");
  demo::EchoServiceProxy proxy = NewProxy("[{name: auth, secret: s3cr3t}]");
  Status refused;
  for (int i = 0; i < 3 && refused.ok(); ++i) refused = proxy.Echo(EchoOf("x")).status();
  EXPECT_EQ(refused.code(), StatusCode::RESOURCE_EXHAUSTED) << refused;
  EXPECT_THAT(refused.message(),
              HasSubstr("auth: replay cache full (2 tokens within the skew window); refusing "
                        "calls rather than risk accepting a replay"));
  EXPECT_LE(service_.handled(), 2);
}

}  // namespace
}  // namespace ferry::plugins_test
