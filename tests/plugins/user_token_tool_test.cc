// ferry-user-token, run as an operator runs it: the tokens it prints are accepted where they
// are meant to be, and only there.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "command_output.h"
#include "ferry/plugins/user_token.h"
#include "filter_fixture.h"
#include "scratch_dir.h"

namespace ferry::plugins_test {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

class UserTokenToolTest : public FilterFixture {
 protected:
  // The tool's stdout and stderr, with the secret u5er-s3cr3t in a file.
  std::string Run(const std::string& flags) {
    const std::string secret = dir_.Write("secret", "u5er-s3cr3t\n");
    return testsupport::CommandOutput(std::string(USER_TOKEN_TOOL) +
                                      " --key-id default --secret-file " + secret + " " + flags);
  }
  // The token line of the tool's output.
  static std::string TokenOf(const std::string& output) {
    return output.substr(0, output.find('\n'));
  }
  Status EchoWith(const std::string& token) {
    demo::EchoServiceProxy proxy = NewProxy();
    CallOptions options;
    options.attachments[std::string(plugins::kUserTokenAttachment)] = token;
    return proxy.Echo(EchoOf("x"), options).status();
  }

  ScratchDir dir_;
};

TEST_F(UserTokenToolTest, AnAudienceMakesATokenForThatServiceWithARevocableId) {
  StartServer("[{name: user_token, secret: u5er-s3cr3t, audience: echo}]");
  const std::string output = Run("--user alice --audience echo --ttl 600");
  EXPECT_THAT(output, StartsWith("u2:default:alice:echo:"));
  EXPECT_THAT(output, HasSubstr("\ntoken id: "));
  EXPECT_TRUE(EchoWith(TokenOf(output)).ok());
  const std::string elsewhere = Run("--user alice --audience seckill");
  EXPECT_EQ(EchoWith(TokenOf(elsewhere)).code(), StatusCode::UNAUTHENTICATED);
}

TEST_F(UserTokenToolTest, TheTokenIdMayBeGivenAndTheTtlIsKept) {
  StartServer("[{name: user_token, secret: u5er-s3cr3t, max_ttl_s: 600}]");
  EXPECT_THAT(Run("--user alice --audience echo --token-id t-1 --ttl 600"),
              StartsWith("u2:default:alice:echo:t-1:"));
  EXPECT_TRUE(EchoWith(TokenOf(Run("--user alice --audience echo --ttl 600"))).ok());
  EXPECT_EQ(EchoWith(TokenOf(Run("--user alice --audience echo --ttl 601"))).code(),
            StatusCode::UNAUTHENTICATED);
}

TEST_F(UserTokenToolTest, EachRoleIsSignedIntoTheToken) {
  StartServer("[{name: user_token, secret: u5er-s3cr3t, audience: echo}]");
  const std::string output = Run("--user ops-ann --audience echo --role operator --role auditor");
  EXPECT_THAT(output, StartsWith("u3:default:ops-ann:echo:"));
  EXPECT_THAT(TokenOf(output), HasSubstr(":auditor,operator:"));
  ASSERT_TRUE(EchoWith(TokenOf(output)).ok());
  EXPECT_THAT(service_.last_verified_roles(), ::testing::ElementsAre("auditor", "operator"));
  EXPECT_THAT(Run("--user alice --role operator"), HasSubstr("--role needs --audience"));
  EXPECT_THAT(Run("--user alice --audience echo --role 'ops team'"),
              HasSubstr("cannot make a token"));
}

TEST_F(UserTokenToolTest, WithoutAnAudienceTheOldFormIsPrinted) {
  EXPECT_THAT(Run("--user alice"), StartsWith("u1:default:alice:"));
  EXPECT_THAT(Run("--user alice --token-id t-1"), HasSubstr("--token-id needs --audience"));
}

}  // namespace
}  // namespace ferry::plugins_test
