// The client auth filter on its own: a token of its own for every call, bound to its body.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "echo.pb.h"
#include "ferry/codec/extension_registry.h"
#include "ferry/framework/filter.h"
#include "ferry/plugins/auth_token.h"

namespace ferry::plugins_test {
namespace {

using namespace std::chrono_literals;
using plugins::AuthRequest;
using plugins::VerifyAuthToken;

constexpr MethodSpec kEcho{.service = "ferry.demo.EchoService", .method = "Echo"};
constexpr MethodSpec kDelay{.service = "ferry.demo.EchoService", .method = "Delay"};

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::shared_ptr<ClientFilter> ConfiguredFilter(const std::string& yaml) {
  std::shared_ptr<ClientFilter> filter = ExtensionRegistry::Instance().Create<ClientFilter>("auth");
  EXPECT_NE(filter, nullptr);
  config::ConfigErrors errors("t.yaml");
  config::ConfigReader reader(YAML::Load(yaml), "filters[0]", &errors);
  filter->Configure(reader);
  EXPECT_TRUE(errors.first().ok()) << errors.first();
  return filter;
}

class AuthClientFilterTest : public ::testing::Test {
 protected:
  void SetUp() override { filter_ = ConfiguredFilter("{secret: s3cr3t, caller: billing}"); }

  // The token the filter gives a call of `method` whose encoded body is `body`.
  static std::string TokenFor(ClientFilter& filter, const MethodSpec& method,
                              std::string_view body) {
    const std::shared_ptr<void> state = filter.NewMethodState(method);
    demo::EchoRequest request;
    CallOptions options;
    ClientCall call{method, request, options, {state.get(), nullptr}, body};
    EXPECT_TRUE(filter.OnCall(call).ok());
    return options.auth_token;
  }

  static Status Verify(const std::string& token, const MethodSpec& method, std::string_view body,
                       std::string* caller = nullptr) {
    const AuthRequest request{.service = method.service, .method = method.method, .body = body};
    return VerifyAuthToken("default", "s3cr3t", token, request, NowMs(), 5s, caller);
  }

  std::shared_ptr<ClientFilter> filter_;
};

TEST_F(AuthClientFilterTest, SignsEachCallForItsMethodBodyAndCaller) {
  const std::string token = TokenFor(*filter_, kEcho, "body");
  std::string caller;
  EXPECT_TRUE(Verify(token, kEcho, "body", &caller).ok()) << token;
  EXPECT_EQ(caller, "billing");
  EXPECT_FALSE(Verify(token, kDelay, "body").ok()) << "a token binds its method";
  EXPECT_FALSE(Verify(token, kEcho, "other body").ok()) << "a token binds its body";
}

// The channel's framing of the call is signed with it: the budget travels in the token.
TEST_F(AuthClientFilterTest, SignsHowTheCallTravels) {
  const std::shared_ptr<void> state = filter_->NewMethodState(kEcho);
  demo::EchoRequest message;
  CallOptions options;
  const RequestFraming framing{
      .timeout_us = 700'000, .serializer = 1, .compression = 1, .max_response_bytes = 4096};
  ClientCall call{kEcho, message, options, {state.get(), nullptr}, "body", framing};
  ASSERT_TRUE(filter_->OnCall(call).ok());
  EXPECT_THAT(options.auth_token, ::testing::HasSubstr(":billing:700000:"));
  AuthRequest request{
      .service = kEcho.service, .method = kEcho.method, .body = "body", .framing = framing};
  EXPECT_TRUE(VerifyAuthToken("default", "s3cr3t", options.auth_token, request, NowMs(), 5s).ok());
  request.framing.timeout_us = 100'000;  // a retry, with less of the budget left
  EXPECT_TRUE(VerifyAuthToken("default", "s3cr3t", options.auth_token, request, NowMs(), 5s).ok());
  request.framing.serializer = 0;
  EXPECT_FALSE(VerifyAuthToken("default", "s3cr3t", options.auth_token, request, NowMs(), 5s).ok());
}

TEST_F(AuthClientFilterTest, EveryCallGetsATokenOfItsOwn) {
  std::set<std::string> tokens;
  for (int i = 0; i < 100; ++i) tokens.insert(TokenFor(*filter_, kEcho, "same body"));
  EXPECT_EQ(tokens.size(), 100u);
}

TEST_F(AuthClientFilterTest, SignsWithTheNamedKey) {
  const std::shared_ptr<ClientFilter> rotated = ConfiguredFilter(
      "{keys: [{id: old, secret: s3cr3t}, {id: new, secret: n3w}], signing_key: new}");
  const std::string token = TokenFor(*rotated, kEcho, "body");
  EXPECT_TRUE(token.starts_with("v4:new:")) << token;
  const AuthRequest request{.service = kEcho.service, .method = kEcho.method, .body = "body"};
  EXPECT_TRUE(VerifyAuthToken("new", "n3w", token, request, NowMs(), 5s).ok());
  EXPECT_FALSE(Verify(token, kEcho, "body").ok());
}

TEST_F(AuthClientFilterTest, EveryThreadGetsTokensTheServerAccepts) {
  std::vector<std::vector<std::string>> tokens(8);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < tokens.size(); ++i) {
    threads.emplace_back([&, i] {
      for (int call = 0; call < 200; ++call) tokens[i].push_back(TokenFor(*filter_, kEcho, "b"));
    });
  }
  for (auto& t : threads) t.join();
  std::set<std::string> distinct;
  for (const auto& of_thread : tokens) {
    for (const std::string& token : of_thread) {
      EXPECT_TRUE(Verify(token, kEcho, "b").ok()) << token;
      distinct.insert(token);
    }
  }
  EXPECT_EQ(distinct.size(), 8u * 200u);
}

}  // namespace
}  // namespace ferry::plugins_test
