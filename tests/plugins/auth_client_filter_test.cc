// The client auth filter on its own: a token per method, kept in the method's own state.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "echo.pb.h"
#include "ferry/codec/extension_registry.h"
#include "ferry/framework/filter.h"
#include "ferry/plugins/auth_token.h"

namespace ferry::plugins_test {
namespace {

constexpr MethodSpec kEcho{.service = "ferry.demo.EchoService", .method = "Echo"};
constexpr MethodSpec kDelay{.service = "ferry.demo.EchoService", .method = "Delay"};

class AuthClientFilterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    filter_ = ExtensionRegistry::Instance().Create<ClientFilter>("auth");
    ASSERT_NE(filter_, nullptr);
    config::ConfigErrors errors("t.yaml");
    config::ConfigReader reader(YAML::Load("{secret: s3cr3t}"), "filters[0]", &errors);
    filter_->Configure(reader);
    ASSERT_TRUE(errors.first().ok()) << errors.first();
  }

  // The token the filter gives a call of `method`, whose state the chain made with `state`.
  std::string TokenFor(const MethodSpec& method, const std::shared_ptr<void>& state) {
    CallOptions options;
    ClientCall call{method, request_, options, {state.get(), nullptr}};
    EXPECT_TRUE(filter_->OnCall(call).ok());
    return options.auth_token;
  }

  static bool SignedFor(const std::string& token, const MethodSpec& method) {
    return plugins::VerifyAuthToken("s3cr3t", token, method.service, method.method,
                                    plugins::AuthTokenMillis(token), std::chrono::milliseconds(0))
        .ok();
  }

  std::shared_ptr<ClientFilter> filter_;
  demo::EchoRequest request_;
};

TEST_F(AuthClientFilterTest, SignsEachCallForItsOwnMethod) {
  const std::shared_ptr<void> echo = filter_->NewMethodState(kEcho);
  const std::shared_ptr<void> delay = filter_->NewMethodState(kDelay);
  ASSERT_NE(echo, nullptr);
  const std::string for_echo = TokenFor(kEcho, echo);
  const std::string for_delay = TokenFor(kDelay, delay);
  EXPECT_TRUE(SignedFor(for_echo, kEcho)) << for_echo;
  EXPECT_FALSE(SignedFor(for_echo, kDelay)) << "a token binds its method";
  EXPECT_TRUE(SignedFor(for_delay, kDelay)) << for_delay;
}

TEST_F(AuthClientFilterTest, AnotherFilterInstanceWithTheSameMethodSignsWithItsOwnSecret) {
  const std::shared_ptr<ClientFilter> other =
      ExtensionRegistry::Instance().Create<ClientFilter>("auth");
  config::ConfigErrors errors("t.yaml");
  config::ConfigReader reader(YAML::Load("{secret: other}"), "filters[0]", &errors);
  other->Configure(reader);
  ASSERT_TRUE(errors.first().ok());
  const std::shared_ptr<void> mine = filter_->NewMethodState(kEcho);
  const std::shared_ptr<void> theirs = other->NewMethodState(kEcho);
  const std::string token = TokenFor(kEcho, mine);
  CallOptions options;
  ClientCall call{kEcho, request_, options, {theirs.get(), nullptr}};
  ASSERT_TRUE(other->OnCall(call).ok());
  EXPECT_TRUE(SignedFor(token, kEcho));
  EXPECT_FALSE(SignedFor(options.auth_token, kEcho)) << "signed with 'other', not 's3cr3t'";
}

TEST_F(AuthClientFilterTest, EveryThreadGetsATokenTheServerAccepts) {
  const std::shared_ptr<void> echo = filter_->NewMethodState(kEcho);
  std::vector<std::string> tokens(8);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < tokens.size(); ++i) {
    threads.emplace_back([&, i] {
      for (int call = 0; call < 1000; ++call) tokens[i] = TokenFor(kEcho, echo);
    });
  }
  for (auto& t : threads) t.join();
  for (const std::string& token : tokens) EXPECT_TRUE(SignedFor(token, kEcho)) << token;
}

}  // namespace
}  // namespace ferry::plugins_test
