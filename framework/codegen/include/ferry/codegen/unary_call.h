#pragma once

#include <functional>
#include <future>
#include <memory>
#include <semaphore>
#include <utility>

#include "ferry/codec/status.h"
#include "ferry/framework/call_options.h"
#include "ferry/framework/channel.h"
#include "ferry/framework/method_spec.h"
#include "ferry/framework/result.h"

// Runtime of the proxies protoc-gen-ferry emits: the three client call forms on top of
// Channel::CallMethod's single callback. Every lambda handed to the channel captures one pointer,
// which std::function stores inline, so the blocking form allocates nothing and the async forms
// allocate one block holding the response and the completion.
namespace ferry::codegen {

template <class Response>
Result<Response> BlockingUnaryCall(Channel& channel, const MethodSpec& method,
                                   const google::protobuf::Message& request,
                                   const CallOptions& options) {
  struct Completion {
    Status status;
    // A semaphore rather than a promise: no shared state to allocate for a wait on this stack.
    std::binary_semaphore done{0};
  } completion;
  Response response;
  channel.CallMethod(method, request, &response, options, [&completion](const Status& status) {
    completion.status = status;
    completion.done.release();
  });
  completion.done.acquire();
  if (!completion.status.ok()) return std::move(completion.status);
  return std::move(response);
}

template <class Response>
void CallbackUnaryCall(Channel& channel, const MethodSpec& method,
                       const google::protobuf::Message& request, const CallOptions& options,
                       std::function<void(Result<Response>)> done) {
  struct Call {
    Response response;
    std::function<void(Result<Response>)> done;
  };
  auto* call = new Call{Response(), std::move(done)};
  channel.CallMethod(method, request, &call->response, options, [call](const Status& status) {
    std::unique_ptr<Call> owned(call);
    if (status.ok()) {
      owned->done(std::move(owned->response));
    } else {
      owned->done(status);
    }
  });
}

template <class Response>
std::future<Result<Response>> FutureUnaryCall(Channel& channel, const MethodSpec& method,
                                              const google::protobuf::Message& request,
                                              const CallOptions& options) {
  struct Call {
    Response response;
    std::promise<Result<Response>> promise;
  };
  auto* call = new Call;
  std::future<Result<Response>> future = call->promise.get_future();
  channel.CallMethod(method, request, &call->response, options, [call](const Status& status) {
    std::unique_ptr<Call> owned(call);
    if (status.ok()) {
      owned->promise.set_value(std::move(owned->response));
    } else {
      owned->promise.set_value(status);
    }
  });
  return future;
}

}  // namespace ferry::codegen
