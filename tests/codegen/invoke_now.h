#pragma once

#include <google/protobuf/message.h>
#include <gtest/gtest.h>

#include <optional>

#include "ferry/framework/service.h"

namespace ferry::testing {

// What a ServerDone completes when a test invokes a method itself: the status, once.
struct CapturedAnswer final : ServerDone::Target {
  std::optional<Status> status;
  int answers = 0;
  void Complete(const Status& answer) override {
    status = answer;
    ++answers;
  }
};

// Invokes `method` through the service's method table, as the server does, and returns its
// answer; the handler must answer before it returns (every synchronous one does).
inline Status InvokeNow(const Service::Method& method, Service& service, ServerContext& context,
                        const google::protobuf::Message& request,
                        google::protobuf::Message* response) {
  CapturedAnswer answer;
  method.invoke(service, context, request, response, ServerDone(&answer));
  EXPECT_EQ(answer.answers, 1) << "a handler answers exactly once";
  return answer.status.value_or(Status(StatusCode::UNKNOWN, "no answer before it returned"));
}

}  // namespace ferry::testing
