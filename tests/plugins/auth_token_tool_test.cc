// ferry-auth-token, run as an operator runs it for curl: the token it prints is good for one
// call through the HTTP gateway, with the body and the timeout it was made for.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "command_output.h"
#include "filter_fixture.h"
#include "raw_http_client.h"
#include "scratch_dir.h"

namespace ferry::plugins_test {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;

class AuthTokenToolTest : public FilterFixture {
 protected:
  void SetUp() override {
    StartServer("[{name: auth, keys: [{id: ops, secret: s3cr3t}]}]");
    secret_ = dir_.Write("secret", "s3cr3t\n");
  }
  // The tool's output for Echo of `body`, with `flags`.
  std::string Token(const std::string& body, const std::string& flags = "") {
    const std::string output = testsupport::CommandOutput(
        std::string(AUTH_TOKEN_TOOL) + " --key-id ops --secret-file " + secret_ +
        " --service ferry.demo.EchoService --method Echo --body '" + body + "' " + flags);
    return output.substr(0, output.find('\n'));
  }
  // POST of `body` to Echo through the gateway with `headers`.
  http_test::RawResponse Post(const std::string& body, const std::string& headers) {
    http_test::RawHttpClient client(server_->port());
    EXPECT_TRUE(
        client.Send(http_test::Request("POST", "/ferry.demo.EchoService/Echo", body, headers)));
    auto answer = client.Read();
    EXPECT_TRUE(answer);
    return answer ? *answer : http_test::RawResponse{};
  }

  ScratchDir dir_;
  std::string secret_;
};

TEST_F(AuthTokenToolTest, ATokenIsGoodOnceForTheBodyItSigns) {
  const std::string body = R"({"payload":"aGk="})";
  const std::string token = Token(body, "--caller ops-cli");
  EXPECT_THAT(token, MatchesRegex("v4:ops:[0-9]+:[A-Za-z0-9_-]{16}:ops-cli:0:[A-Za-z0-9_-]{22}"));
  const auto served = Post(body, "Authorization: Bearer " + token + "\r\n");
  EXPECT_EQ(served.status, 200) << served.body;
  EXPECT_EQ(service_.last_verified_caller(), "ops-cli");
  const auto again = Post(body, "Authorization: Bearer " + token + "\r\n");
  EXPECT_EQ(again.status, 401);
  EXPECT_THAT(again.body, HasSubstr("replayed token"));
}

// A token for a call within 2 s is good for one sent with X-Ferry-Timeout-Ms up to 2000, and
// for no call allowed longer, nor one with no deadline at all.
TEST_F(AuthTokenToolTest, ATimeoutSignedIsTheMostTheCallMayBeGiven) {
  const std::string body = "{}";
  const auto longer = Post(body, "Authorization: Bearer " + Token(body, "--timeout-ms 2000") +
                                     "\r\nX-Ferry-Timeout-Ms: 5000\r\n");
  EXPECT_EQ(longer.status, 401);
  EXPECT_THAT(longer.body, HasSubstr("timeout beyond the token's budget (the request allows "
                                     "5000000 us, the token signed 2000000 us)"));
  const auto none =
      Post(body, "Authorization: Bearer " + Token(body, "--timeout-ms 2000") + "\r\n");
  EXPECT_EQ(none.status, 401);
  const auto within = Post(body, "Authorization: Bearer " + Token(body, "--timeout-ms 2000") +
                                     "\r\nX-Ferry-Timeout-Ms: 2000\r\n");
  EXPECT_EQ(within.status, 200) << within.body;
  EXPECT_THAT(
      testsupport::CommandOutput(std::string(AUTH_TOKEN_TOOL) + " --key-id ops --secret-file " +
                                 secret_ + " --service s.S --method M --timeout-ms 0"),
      HasSubstr("--timeout-ms: expected milliseconds from 1, got '0'"));
}

}  // namespace
}  // namespace ferry::plugins_test
