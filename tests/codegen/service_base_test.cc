#include <google/protobuf/descriptor.h>
#include <gtest/gtest.h>

#include <thread>

#include "echo.ferry.h"
#include "invoke_now.h"

namespace ferry::demo {
namespace {

// Overrides nothing: every method must fall back to the generated default.
class BareEchoService final : public EchoServiceBase {};

TEST(ServiceBaseTest, FullNameIsTheProtoName) {
  BareEchoService service;
  EXPECT_EQ(service.full_name(), "ferry.demo.EchoService");
}

TEST(ServiceBaseTest, DefaultMethodsAnswerUnimplementedNamingTheMethod) {
  BareEchoService service;
  AdmissionContext context;
  EchoRequest request;
  EchoResponse response;
  Status status = service.Echo(context, request, &response);
  EXPECT_EQ(status.code(), StatusCode::UNIMPLEMENTED);
  EXPECT_NE(status.message().find("ferry.demo.EchoService.Echo"), std::string::npos)
      << status.message();

  DelayRequest delay;
  status = service.Delay(context, delay, &response);
  EXPECT_EQ(status.code(), StatusCode::UNIMPLEMENTED);
  EXPECT_NE(status.message().find("ferry.demo.EchoService.Delay"), std::string::npos)
      << status.message();
}

TEST(ServiceBaseTest, MethodTableListsSpecsAndPrototypesInProtoOrder) {
  BareEchoService service;
  const auto methods = service.methods();
  ASSERT_EQ(methods.size(), 2u);

  EXPECT_EQ(methods[0].spec, &EchoServiceMethods::Echo);
  EXPECT_EQ(methods[0].request_prototype, &EchoRequest::default_instance());
  EXPECT_EQ(methods[0].response_prototype, &EchoResponse::default_instance());

  EXPECT_EQ(methods[1].spec, &EchoServiceMethods::Delay);
  EXPECT_EQ(methods[1].request_prototype, &DelayRequest::default_instance());
  EXPECT_EQ(methods[1].response_prototype, &EchoResponse::default_instance());
}

TEST(ServiceBaseTest, MethodTableIsSharedByAllInstances) {
  BareEchoService a;
  BareEchoService b;
  EXPECT_EQ(a.methods().data(), b.methods().data());
}

TEST(ServiceBaseTest, InvokeReachesTheOverrideThroughTheBaseClass) {
  class CountingEchoService final : public EchoServiceBase {
   public:
    Status Echo(ServerContext&, const EchoRequest& request, EchoResponse* response) override {
      ++calls;
      response->set_payload(request.payload() + "!");
      return Status::Ok();
    }
    int calls = 0;
  } counting;
  Service& service = counting;
  AdmissionContext context;
  EchoRequest request;
  request.set_payload("hi");
  EchoResponse response;

  Status status =
      ferry::testing::InvokeNow(service.methods()[0], service, context, request, &response);
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_EQ(response.payload(), "hi!");
  EXPECT_EQ(counting.calls, 1);

  // Delay is not overridden: the table's thunk must land on the generated default.
  DelayRequest delay;
  status = ferry::testing::InvokeNow(service.methods()[1], service, context, delay, &response);
  EXPECT_EQ(status.code(), StatusCode::UNIMPLEMENTED);
  EXPECT_EQ(counting.calls, 1);
}

TEST(ServiceBaseTest, AnAsynchronousOverrideAnswersLaterFromAnotherThread) {
  class LaterEchoService final : public EchoServiceBase {
   public:
    void EchoAsync(ServerContext&, const EchoRequest& request, EchoResponse* response,
                   ServerDone done) override {
      worker = std::thread([&request, response, done = std::move(done)]() mutable {
        response->set_payload(request.payload() + " later");
        done(Status::Ok());
      });
    }
    std::thread worker;
  } later;
  AdmissionContext context;
  EchoRequest request;
  request.set_payload("hi");
  EchoResponse response;
  ferry::testing::CapturedAnswer answer;
  later.methods()[0].invoke(later, context, request, &response, ServerDone(&answer));
  later.worker.join();
  ASSERT_EQ(answer.answers, 1);
  EXPECT_TRUE(answer.status->ok()) << *answer.status;
  EXPECT_EQ(response.payload(), "hi later");
}

TEST(ServiceBaseTest, ACompletionDroppedUnansweredAnswersInternal) {
  class ForgetfulService final : public EchoServiceBase {
   public:
    void EchoAsync(ServerContext&, const EchoRequest&, EchoResponse*, ServerDone) override {}
  } forgetful;
  AdmissionContext context;
  EchoRequest request;
  EchoResponse response;
  const Status status =
      ferry::testing::InvokeNow(forgetful.methods()[0], forgetful, context, request, &response);
  EXPECT_EQ(status.code(), StatusCode::INTERNAL);
  EXPECT_NE(status.message().find("without answering"), std::string::npos) << status;
}

}  // namespace
}  // namespace ferry::demo
