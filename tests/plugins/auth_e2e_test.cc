#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "ferry/plugins/auth_token.h"
#include "filter_fixture.h"

namespace ferry::plugins_test {
namespace {

using ::testing::HasSubstr;

class AuthTest : public FilterFixture {
 protected:
  void SetUp() override { StartServer("[{name: auth, secret: s3cr3t, max_skew_ms: 30000}]"); }

  static void ExpectUnauthenticated(const Result<demo::EchoResponse>& result,
                                    const std::string& why) {
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().code(), StatusCode::UNAUTHENTICATED) << result.status();
    EXPECT_THAT(result.status().message(), HasSubstr(why));
  }
};

TEST_F(AuthTest, CallerWithTheSecretIsServed) {
  demo::EchoServiceProxy proxy = NewProxy("[{name: auth, secret: s3cr3t}]");
  const auto echoed = proxy.Echo(EchoOf("hello"));
  ASSERT_TRUE(echoed.ok()) << echoed.status();
  EXPECT_EQ(echoed->payload(), "hello");
  demo::DelayRequest delay;  // a pool method, not only an inline one
  delay.set_payload("slow");
  const auto delayed = proxy.Delay(delay);
  ASSERT_TRUE(delayed.ok()) << delayed.status();
  EXPECT_EQ(service_.handled(), 2);
}

TEST_F(AuthTest, WrongSecretIsUnauthenticated) {
  ExpectUnauthenticated(NewProxy("[{name: auth, secret: guess}]").Echo(EchoOf("x")),
                        "auth: invalid token signature (wrong secret, or made for another "
                        "method) for "
                        "ferry.demo.EchoService/Echo");
  EXPECT_EQ(service_.handled(), 0);
}

TEST_F(AuthTest, MissingTokenIsUnauthenticated) {
  ExpectUnauthenticated(NewProxy().Echo(EchoOf("x")),
                        "auth: missing token for ferry.demo.EchoService/Echo");
  EXPECT_EQ(service_.handled(), 0);
}

TEST_F(AuthTest, ExpiredTokenIsUnauthenticated) {
  // A token signed correctly a minute ago: the clock, not the secret, rejects it.
  const int64_t a_minute_ago =
      std::chrono::duration_cast<std::chrono::milliseconds>(
          (std::chrono::system_clock::now() - std::chrono::minutes(1)).time_since_epoch())
          .count();
  CallOptions options;
  options.auth_token =
      plugins::MakeAuthToken("s3cr3t", "ferry.demo.EchoService", "Echo", a_minute_ago);
  ExpectUnauthenticated(NewProxy().Echo(EchoOf("x"), options), "expired token");
  EXPECT_EQ(service_.handled(), 0);
}

TEST_F(AuthTest, TokenOfAnotherMethodIsUnauthenticated) {
  const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  CallOptions options;
  options.auth_token = plugins::MakeAuthToken("s3cr3t", "ferry.demo.EchoService", "Delay", now);
  ExpectUnauthenticated(NewProxy().Echo(EchoOf("x"), options), "invalid token signature");
}

// The server remembers tokens it verified; remembering must never stretch a token's life or
// carry it to another method.
class ShortSkewAuthTest : public AuthTest {
 protected:
  void SetUp() override { StartServer("[{name: auth, secret: s3cr3t, max_skew_ms: 300}]"); }
};

TEST_F(ShortSkewAuthTest, AVerifiedTokenStillExpiresAndStaysBoundToItsMethod) {
  const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  CallOptions options;
  options.auth_token = plugins::MakeAuthToken("s3cr3t", "ferry.demo.EchoService", "Echo", now);
  demo::EchoServiceProxy proxy = NewProxy();
  ASSERT_TRUE(proxy.Echo(EchoOf("1"), options).ok());
  ASSERT_TRUE(proxy.Echo(EchoOf("2"), options).ok());  // the remembered verification
  demo::DelayRequest delay;
  const auto other_method = proxy.Delay(delay, options);
  ASSERT_FALSE(other_method.ok());
  EXPECT_EQ(other_method.status().code(), StatusCode::UNAUTHENTICATED);
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  ExpectUnauthenticated(proxy.Echo(EchoOf("3"), options), "expired token");
  EXPECT_EQ(service_.handled(), 2);
}

}  // namespace
}  // namespace ferry::plugins_test
