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
// async form allocates one block (AsyncCall) holding the response, the completion and the
// call's Cancellation.
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

// The block one async call allocates: the response, the caller's completion and the call's
// Cancellation, shared by the channel (until the call completes) and the caller's handle.
template <class Response, class Completion>
struct AsyncCall {
  Response response;
  Cancellation cancellation;
  Completion completion;
  // The channel's reference, held by the block itself: the callback handed to the channel then
  // captures one pointer, which std::function keeps without allocating.
  std::shared_ptr<AsyncCall> self;
};

// Calls `method` with `options` plus the call's own cancellation; `Complete()(call, status)`
// runs once, when the channel completes the call. `Complete` is stateless, so the callback holds
// nothing but the call. Returns the cancellation, for the caller's handle.
template <class Complete, class Call>
std::shared_ptr<Cancellation> StartAsyncCall(Channel& channel, const MethodSpec& method,
                                             const google::protobuf::Message& request,
                                             const CallOptions& options,
                                             std::shared_ptr<Call> call) {
  std::shared_ptr<Cancellation> cancellation(call, &call->cancellation);
  CallOptions cancellable = options;
  cancellable.cancellation = &call->cancellation;  // lives in the block, which outlives the call
  Call* raw = call.get();
  raw->self = std::move(call);
  channel.CallMethod(method, request, &raw->response, cancellable, [raw](const Status& status) {
    std::shared_ptr<Call> owned = std::move(raw->self);
    Complete()(*owned, status);
  });
  return cancellation;
}

template <class Response>
CallHandle CallbackUnaryCall(Channel& channel, const MethodSpec& method,
                             const google::protobuf::Message& request, const CallOptions& options,
                             std::function<void(Result<Response>)> done) {
  using Call = AsyncCall<Response, std::function<void(Result<Response>)>>;
  auto call = std::make_shared<Call>();
  call->completion = std::move(done);
  struct Complete {
    void operator()(Call& c, const Status& status) const {
      if (status.ok()) {
        c.completion(std::move(c.response));
      } else {
        c.completion(status);
      }
    }
  };
  return CallHandle(StartAsyncCall<Complete>(channel, method, request, options, std::move(call)));
}

template <class Response>
CallFuture<Response> FutureUnaryCall(Channel& channel, const MethodSpec& method,
                                     const google::protobuf::Message& request,
                                     const CallOptions& options) {
  using Call = AsyncCall<Response, std::promise<Result<Response>>>;
  auto call = std::make_shared<Call>();
  std::future<Result<Response>> future = call->completion.get_future();
  struct Complete {
    void operator()(Call& c, const Status& status) const {
      if (status.ok()) {
        c.completion.set_value(std::move(c.response));
      } else {
        c.completion.set_value(status);
      }
    }
  };
  return CallFuture<Response>(
      std::move(future),
      CallHandle(StartAsyncCall<Complete>(channel, method, request, options, std::move(call))));
}

}  // namespace ferry::codegen
