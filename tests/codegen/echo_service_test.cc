#include <chrono>
#include <memory>
#include <stdexcept>
#include <thread>

#include <gtest/gtest.h>

#include "invoke_now.h"
#include "service/echo_service.h"

namespace ferry::demo {
namespace {

// Calls the handlers the way the server does: through methods() with messages New()ed from the
// prototypes, so the generated thunks and EchoServiceImpl are exercised together.
class EchoServiceTest : public ::testing::Test {
 protected:
  Status Invoke(std::string_view method, const google::protobuf::Message& request,
                EchoResponse* response) {
    for (const Service::Method& entry : service_.methods()) {
      if (entry.spec->method != method) continue;
      std::unique_ptr<google::protobuf::Message> typed(entry.request_prototype->New());
      typed->CopyFrom(request);
      return ferry::testing::InvokeNow(entry, service_, context_, *typed, response);
    }
    ADD_FAILURE() << "no method " << method;
    return Status(StatusCode::NOT_FOUND, std::string(method));
  }

  EchoServiceImpl service_;
  AdmissionContext context_;
};

TEST_F(EchoServiceTest, EchoReturnsThePayload) {
  EchoRequest request;
  request.set_payload(std::string("bytes\0with nul", 14));
  EchoResponse response;
  Status status = Invoke("Echo", request, &response);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(response.payload(), request.payload());
}

TEST_F(EchoServiceTest, DelayWithoutInstructionsEchoes) {
  DelayRequest request;
  request.set_payload("late");
  request.set_sleep_ms(1);
  EchoResponse response;
  Status status = Invoke("Delay", request, &response);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(response.payload(), "late");
}

TEST_F(EchoServiceTest, DelayFailsWithTheRequestedCodeAndMessage) {
  DelayRequest request;
  request.set_fail_code(static_cast<uint32_t>(StatusCode::RESOURCE_EXHAUSTED));
  request.set_fail_message("out of widgets");
  EchoResponse response;
  EXPECT_EQ(Invoke("Delay", request, &response),
            Status(StatusCode::RESOURCE_EXHAUSTED, "out of widgets"));
}

TEST_F(EchoServiceTest, DelayRejectsAnUnknownFailCode) {
  DelayRequest request;
  request.set_fail_code(999);
  EchoResponse response;
  EXPECT_EQ(Invoke("Delay", request, &response).code(), StatusCode::INVALID_ARGUMENT);
}

TEST_F(EchoServiceTest, DelayThrowsWhenAsked) {
  DelayRequest request;
  request.set_throw_exception(true);
  EchoResponse response;
  EXPECT_THROW(Invoke("Delay", request, &response), std::runtime_error);
}

TEST_F(EchoServiceTest, FailCodeWinsOverThrow) {
  DelayRequest request;
  request.set_fail_code(static_cast<uint32_t>(StatusCode::ABORTED));
  request.set_throw_exception(true);
  EchoResponse response;
  EXPECT_EQ(Invoke("Delay", request, &response).code(), StatusCode::ABORTED);
}

// A call cancelled before it runs must not sit out its sleep; were it to, the status would be
// OK instead of CANCELLED (and the test would take a minute).
TEST_F(EchoServiceTest, DelayStopsSleepingWhenCancelled) {
  context_.Cancel();
  DelayRequest request;
  request.set_sleep_ms(60'000);
  request.set_payload("never");
  EchoResponse response;
  EXPECT_EQ(Invoke("Delay", request, &response).code(), StatusCode::CANCELLED);
  EXPECT_TRUE(response.payload().empty());
}

TEST_F(EchoServiceTest, DelayWakesUpWhenCancelledMidSleep) {
  DelayRequest request;
  request.set_sleep_ms(60'000);
  EchoResponse response;
  std::thread canceller([this] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    context_.Cancel();
  });
  Status status = Invoke("Delay", request, &response);
  canceller.join();
  EXPECT_EQ(status.code(), StatusCode::CANCELLED);
}

}  // namespace
}  // namespace ferry::demo
