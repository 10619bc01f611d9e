// The gateway and routes as curl (Debian's) sees them: what people try a service with.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "command_output.h"
#include "ferry/framework/server.h"
#include "service/echo_service.h"

namespace ferry::http_test {
namespace {

class CurlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.emplace(ServerOptions{.listen = "127.0.0.1:0"});
    ASSERT_TRUE(server_->AddService(&echo_).ok());
    ASSERT_TRUE(server_
                    ->AddHttpRoute({.method = "GET",
                                    .pattern = "/r/{code}",
                                    .handler =
                                        [](const HttpRequest& request, HttpReply reply) {
                                          HttpResponse response;
                                          response.status = 302;
                                          response.Set("Location",
                                                       "https://example.com/" +
                                                           std::string(request.Param("code")));
                                          reply(std::move(response));
                                        }})
                    .ok());
    ASSERT_TRUE(server_->Start().ok());
    base_ = "http://127.0.0.1:" + std::to_string(server_->port());
  }

  demo::EchoServiceImpl echo_;
  std::optional<Server> server_;
  std::string base_;
};

TEST_F(CurlTest, CallsAMethodThroughTheGateway) {
  const std::string out =
      testsupport::CommandOutput(CURL_BINARY " -s -i -X POST " + base_ +
                                 "/ferry.demo.EchoService/Echo -H 'Content-Type: application/json' "
                                 "-d '{\"payload\":\"aGVsbG8=\"}'");
  EXPECT_NE(out.find("HTTP/1.1 200 OK"), std::string::npos) << out;
  EXPECT_NE(out.find("{\"payload\":\"aGVsbG8=\"}"), std::string::npos) << out;
}

// curl -d says Content-Type: application/x-www-form-urlencoded unless told otherwise, which the
// gateway refuses (docs/http.md).
TEST_F(CurlTest, APostWithCurlsDefaultFormTypeIsRefused415) {
  const std::string out = testsupport::CommandOutput(CURL_BINARY " -s -i -X POST -d '{}' " + base_ +
                                                     "/ferry.demo.EchoService/Echo");
  EXPECT_NE(out.find("HTTP/1.1 415 Unsupported Media Type"), std::string::npos) << out;
  EXPECT_NE(out.find("not 'application/x-www-form-urlencoded'"), std::string::npos) << out;
}

TEST_F(CurlTest, ReusesOneConnectionForSeveralRequests) {
  const std::string out = testsupport::CommandOutput(
      CURL_BINARY " -s -v -X POST -H 'Content-Type: application/json' -d '{}' " + base_ +
      "/ferry.demo.EchoService/Echo " + base_ + "/ferry.demo.EchoService/Echo");
  EXPECT_NE(out.find("Re-using existing connection"), std::string::npos) << out;
  EXPECT_EQ(out.find("Connection: close"), std::string::npos) << out;
}

TEST_F(CurlTest, FollowsNoRedirectButSeesTheLocation) {
  const std::string out = testsupport::CommandOutput(CURL_BINARY " -s -i " + base_ + "/r/Ab3");
  EXPECT_NE(out.find("HTTP/1.1 302 Found"), std::string::npos) << out;
  EXPECT_NE(out.find("Location: https://example.com/Ab3"), std::string::npos) << out;
}

TEST_F(CurlTest, AMalformedRequestIsAnswered400AndTheConnectionClosed) {
  // A method with a space in it breaks the request line.
  const std::string out =
      testsupport::CommandOutput(CURL_BINARY " -s -i -X 'GE T' " + base_ + "/r/x");
  EXPECT_NE(out.find("HTTP/1.1 400 Bad Request"), std::string::npos) << out;
  EXPECT_NE(out.find("Connection: close"), std::string::npos) << out;
}

TEST_F(CurlTest, AnUnknownMethodIsA404NamingIt) {
  const std::string out = testsupport::CommandOutput(
      CURL_BINARY " -s -i -X POST -H 'Content-Type: application/json' -d '{}' " + base_ +
      "/ferry.demo.EchoService/Shout");
  EXPECT_NE(out.find("HTTP/1.1 404 Not Found"), std::string::npos) << out;
  EXPECT_NE(out.find("unknown method 'Shout'"), std::string::npos) << out;
}

}  // namespace
}  // namespace ferry::http_test
