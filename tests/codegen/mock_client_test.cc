#include <chrono>
#include <future>
#include <optional>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "echo.ferry_mock.h"

namespace ferry::demo {
namespace {

using ::testing::_;
using ::testing::ByMove;
using ::testing::Field;
using ::testing::Property;
using ::testing::Return;

// Code under test as a service author would write it: it knows only EchoServiceClient.
class Greeter {
 public:
  explicit Greeter(EchoServiceClient& echo) : echo_(echo) {}

  std::string Greet(const std::string& name) {
    return Describe(echo_.Echo(Request(name), Options()));
  }
  std::future<std::string> GreetLater(const std::string& name) {
    CallFuture<EchoResponse> reply = echo_.EchoAsync(Request(name), Options());
    return std::async(std::launch::deferred,
                      [reply = std::move(reply)]() mutable { return Describe(reply.get()); });
  }
  void GreetThen(const std::string& name, std::function<void(std::string)> done) {
    echo_.EchoWithCallback(
        Request(name),
        [done = std::move(done)](Result<EchoResponse> reply) { done(Describe(reply)); }, Options());
  }

 private:
  static EchoRequest Request(const std::string& name) {
    EchoRequest request;
    request.set_payload("hello " + name);
    return request;
  }
  static CallOptions Options() {
    CallOptions options;
    options.timeout = std::chrono::milliseconds(250);
    return options;
  }
  static std::string Describe(const Result<EchoResponse>& reply) {
    return reply.ok() ? reply->payload() : "failed: " + reply.status().ToString();
  }

  EchoServiceClient& echo_;
};

EchoResponse Response(const std::string& payload) {
  EchoResponse response;
  response.set_payload(payload);
  return response;
}

const auto kGreetingFor = [](const std::string& name) {
  return Property(&EchoRequest::payload, "hello " + name);
};
const auto kWithGreeterTimeout = Field(&CallOptions::timeout, std::chrono::milliseconds(250));

TEST(MockClientTest, BlockingForm) {
  MockEchoServiceClient echo;
  EXPECT_CALL(echo, Echo(kGreetingFor("ann"), kWithGreeterTimeout))
      .WillOnce(Return(Result<EchoResponse>(Response("hi ann"))));
  EXPECT_CALL(echo, Echo(kGreetingFor("bob"), _))
      .WillOnce(Return(Result<EchoResponse>(Status(StatusCode::UNAVAILABLE, "down"))));

  Greeter greeter(echo);
  EXPECT_EQ(greeter.Greet("ann"), "hi ann");
  EXPECT_EQ(greeter.Greet("bob"), "failed: UNAVAILABLE: down");
}

TEST(MockClientTest, FutureForm) {
  MockEchoServiceClient echo;
  std::promise<Result<EchoResponse>> reply;
  EXPECT_CALL(echo, EchoAsync(kGreetingFor("cy"), kWithGreeterTimeout))
      .WillOnce(Return(ByMove(CallFuture<EchoResponse>(reply.get_future(), CallHandle()))));

  Greeter greeter(echo);
  std::future<std::string> greeting = greeter.GreetLater("cy");
  reply.set_value(Response("hi cy"));
  EXPECT_EQ(greeting.get(), "hi cy");
}

TEST(MockClientTest, CallbackForm) {
  MockEchoServiceClient echo;
  EXPECT_CALL(echo, EchoWithCallback(kGreetingFor("di"), _, kWithGreeterTimeout))
      .WillOnce([](const EchoRequest&, std::function<void(Result<EchoResponse>)> done,
                   const CallOptions&) {
        done(Status(StatusCode::DEADLINE_EXCEEDED, "slow"));
        return CallHandle();
      });

  Greeter greeter(echo);
  std::optional<std::string> greeting;
  greeter.GreetThen("di", [&greeting](std::string text) { greeting = std::move(text); });
  EXPECT_EQ(greeting, "failed: DEADLINE_EXCEEDED: slow");
}

}  // namespace
}  // namespace ferry::demo
