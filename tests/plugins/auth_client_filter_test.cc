// The client auth filter on its own: how long it reuses the token it made, by the call's time.

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "auth_token_cache.h"
#include "echo.ferry.h"
#include "echo.pb.h"
#include "ferry/codec/extension_registry.h"
#include "ferry/framework/filter.h"
#include "ferry/plugins/auth_token.h"

namespace ferry::plugins_test {
namespace {

using Clock = std::chrono::steady_clock;

constexpr MethodSpec kEcho{.service = "ferry.demo.EchoService", .method = "Echo"};

class AuthClientFilterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    filter_ = ExtensionRegistry::Instance().Create<ClientFilter>("auth");
    ASSERT_NE(filter_, nullptr);
    ASSERT_TRUE(filter_->Configure("{name: auth, secret: s3cr3t}").ok());
  }

  // The token the filter gives a call of `method` that started at `started`.
  std::string TokenFor(const MethodSpec& method, Clock::time_point started) {
    CallOptions options;
    ClientCall call{method, request_, options, started};
    EXPECT_TRUE(filter_->OnCall(call).ok());
    return options.auth_token;
  }
  std::string TokenAt(Clock::time_point started) { return TokenFor(kEcho, started); }

  static bool SignedFor(const std::string& token, const MethodSpec& method) {
    return plugins::VerifyAuthToken("s3cr3t", token, method.service, method.method,
                                    plugins::AuthTokenMillis(token), std::chrono::milliseconds(0))
        .ok();
  }

  std::shared_ptr<ClientFilter> filter_;
  demo::EchoRequest request_;
};

// The filter judges a token's age by ClientCall::started, not by a clock of its own: that is
// what lets it skip the clock read on every call.
TEST_F(AuthClientFilterTest, ReusesATokenForOneSecondOfCallTimeThenSignsAFreshOne) {
  const Clock::time_point start = Clock::now();
  const std::string first = TokenAt(start);
  EXPECT_TRUE(plugins::VerifyAuthToken("s3cr3t", first, kEcho.service, kEcho.method,
                                       plugins::AuthTokenMillis(first),
                                       std::chrono::milliseconds(0))
                  .ok());
  // Any token signed after this differs from `first` in its milliseconds.
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(TokenAt(start + std::chrono::milliseconds(999)), first);
  const std::string renewed = TokenAt(start + std::chrono::milliseconds(1001));
  EXPECT_NE(renewed, first);
  EXPECT_GT(plugins::AuthTokenMillis(renewed), plugins::AuthTokenMillis(first));
  EXPECT_EQ(TokenAt(start + std::chrono::milliseconds(1500)), renewed);
}

TEST_F(AuthClientFilterTest, SignsEachMethodWithItsOwnToken) {
  constexpr MethodSpec kDelay{.service = "ferry.demo.EchoService", .method = "Delay"};
  const Clock::time_point start = Clock::now();
  CallOptions options;
  ClientCall call{kDelay, request_, options, start};
  ASSERT_TRUE(filter_->OnCall(call).ok());
  const std::string delay_token = options.auth_token;
  EXPECT_TRUE(plugins::VerifyAuthToken("s3cr3t", delay_token, kDelay.service, kDelay.method,
                                       plugins::AuthTokenMillis(delay_token),
                                       std::chrono::milliseconds(0))
                  .ok());
  EXPECT_NE(TokenAt(start), delay_token);
}

// A generated spec is known by its address; one built at run time by its names, since another
// may later take its address.
TEST_F(AuthClientFilterTest, KnowsRunTimeSpecsByNameAndGeneratedOnesByAddress) {
  const Clock::time_point start = Clock::now();
  const MethodSpec& generated = demo::EchoServiceMethods::Echo;
  ASSERT_TRUE(generated.generated);
  EXPECT_TRUE(SignedFor(TokenFor(generated, start), generated));

  const std::string service = "ferry.demo.EchoService";
  const std::string echo = "Echo";
  const std::string delay = "Delay";
  MethodSpec built{.service = service, .method = echo};
  EXPECT_TRUE(SignedFor(TokenFor(built, start), built));
  built = MethodSpec{.service = service, .method = delay};  // the same address, another method
  EXPECT_TRUE(SignedFor(TokenFor(built, start), built));
}

}  // namespace
}  // namespace ferry::plugins_test
