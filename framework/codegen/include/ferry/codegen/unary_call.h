#pragma once

#include <functional>
#include <future>
#include <memory>
#include <semaphore>
#include <utility>

#include "ferry/codec/status.h"
#include "ferry/framework/call_handle.h"
#include "ferry/framework/call_options.h"
#include "ferry/framework/channel.h"
#include "ferry/framework/method_spec.h"
#include "ferry/framework/result.h"

// Runtime of the proxies protoc-gen-ferry emits: the three client call forms on top of
// Channel::CallMethod's single callback. The blocking form allocates nothing of its own; each
// async form allocates one block holding the response, the completion and the call's
// Cancellation.
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

// Calls `method` with `options` plus a cancellation of the call's own; `complete(status)` runs
// once with the response in `call->response`. `Call` has members `response` and `cancellation`.
template <class Call, class Complete>
std::shared_ptr<Call> StartCancellableCall(Channel& channel, const MethodSpec& method,
                                           const google::protobuf::Message& request,
                                           const CallOptions& options, std::shared_ptr<Call> call,
                                           Complete complete) {
  CallOptions cancellable = options;
  cancellable.cancellation =
      std::shared_ptr<Cancellation>(call, &call->cancellation);  // shares the call's block
  Call* raw = call.get();
  // The callback holds the block until the call completed.
  channel.CallMethod(method, request, &raw->response, cancellable,
                     [call, complete = std::move(complete)](const Status& status) mutable {
                       complete(*call, status);
                       call.reset();
                     });
  return std::shared_ptr<Call>(std::move(call));
}

template <class Response>
CallHandle CallbackUnaryCall(Channel& channel, const MethodSpec& method,
                             const google::protobuf::Message& request, const CallOptions& options,
                             std::function<void(Result<Response>)> done) {
  struct Call {
    Response response;
    Cancellation cancellation;
    std::function<void(Result<Response>)> done;
  };
  auto call = std::make_shared<Call>();
  call->done = std::move(done);
  auto started = StartCancellableCall(channel, method, request, options, std::move(call),
                                      [](Call& c, const Status& status) {
                                        if (status.ok()) {
                                          c.done(std::move(c.response));
                                        } else {
                                          c.done(status);
                                        }
                                      });
  return CallHandle(std::shared_ptr<Cancellation>(started, &started->cancellation));
}

template <class Response>
CallFuture<Response> FutureUnaryCall(Channel& channel, const MethodSpec& method,
                                     const google::protobuf::Message& request,
                                     const CallOptions& options) {
  struct Call {
    Response response;
    Cancellation cancellation;
    std::promise<Result<Response>> promise;
  };
  auto call = std::make_shared<Call>();
  std::future<Result<Response>> future = call->promise.get_future();
  auto started = StartCancellableCall(channel, method, request, options, std::move(call),
                                      [](Call& c, const Status& status) {
                                        if (status.ok()) {
                                          c.promise.set_value(std::move(c.response));
                                        } else {
                                          c.promise.set_value(status);
                                        }
                                      });
  return CallFuture<Response>(
      std::move(future), CallHandle(std::shared_ptr<Cancellation>(started, &started->cancellation)));
}

}  // namespace ferry::codegen
