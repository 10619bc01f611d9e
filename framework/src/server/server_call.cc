#include "server/server_call.h"

#include <google/protobuf/message.h>

#include <exception>
#include <string>

#include "ferry/codec/message_codec.h"
#include "ferry/rpc_meta.pb.h"
#include "logger.h"
#include "server/server_connection.h"

namespace ferry::server {
namespace {

// A budget beyond a year is no deadline at all, and would overflow the clock arithmetic.
constexpr uint64_t kMaxTimeoutUs = uint64_t{365} * 24 * 3600 * 1000 * 1000;

ServerCall::Messages NewMessages(const MethodTable::Entry& method) {
  return {&method,
          std::unique_ptr<google::protobuf::Message>(method.method->request_prototype->New()),
          std::unique_ptr<google::protobuf::Message>(method.method->response_prototype->New())};
}

// Cleared rather than freed: their strings keep their capacity for the next call.
ServerCall::Messages* Recycle(const MethodTable::Entry& method, ServerCall::Messages* messages) {
  if (messages->method == &method) {
    messages->request->Clear();
    messages->response->Clear();
  } else {
    *messages = NewMessages(method);
  }
  return messages;
}

}  // namespace

ServerCall::ServerCall(std::shared_ptr<ServerConnection> connection,
                       const MethodTable::Entry& method, const codec::FrameHeader& header)
    : connection_(std::move(connection)),
      method_(method),
      request_id_(header.request_id),
      serializer_(header.serializer),
      one_way_((header.flags & codec::flags::kOneWay) != 0),
      owned_(NewMessages(method)),
      request_(owned_.request.get()),
      response_(owned_.response.get()),
      context_(&owned_context_.emplace()) {}

ServerCall::ServerCall(std::shared_ptr<ServerConnection> connection,
                       const MethodTable::Entry& method, const codec::FrameHeader& header,
                       Messages* messages, ServerContext* context)
    : connection_(std::move(connection)),
      method_(method),
      request_id_(header.request_id),
      serializer_(header.serializer),
      one_way_((header.flags & codec::flags::kOneWay) != 0),
      request_(Recycle(method, messages)->request.get()),
      response_(messages->response.get()),
      context_(context) {}

ServerCall::~ServerCall() {
  if (tracked_) connection_->Untrack(this);
}

Status ServerCall::Prepare(const codec::Frame& frame, wire::RpcMeta* meta,
                           const AuthTokenTable::Token* token,
                           ServerContext::Clock::time_point received, size_t max_body_bytes) {
  Status status = codec::ParseBody(frame.header, frame.body, max_body_bytes, request_);
  if (!status.ok()) return status;
  ServerContext& context = *context_;
  context.service_ = method_.service_name;
  context.method_ = method_.method->spec->method;
  context.method_id_ = method_.id;
  context.received_at_ = received;
  context.deadline_ = meta->timeout_us() != 0 && meta->timeout_us() <= kMaxTimeoutUs
                          ? received + std::chrono::microseconds(meta->timeout_us())
                          : ServerContext::Clock::time_point::max();
  context.peer_.assign(connection_->peer());
  context.trace_id_.swap(*meta->mutable_trace_id());
  context.request_id_ = meta->call_id();
  if (token == nullptr) {
    context.auth_token_.swap(*meta->mutable_auth_token());
    context.auth_token_id_ = 0;
  } else if (context.auth_token_id_ != token->id) {
    // A connection's inline calls share one context, which mostly holds this token already.
    context.auth_token_.assign(token->token);
    context.auth_token_id_ = token->id;
  }
  context.attachments_.clear();
  if (!meta->attachments().empty()) {
    context.attachments_.insert(meta->attachments().begin(), meta->attachments().end());
  }
  context.cancelled_.store(false, std::memory_order_relaxed);
  return Status::Ok();
}

void ServerCall::Track() {
  connection_->Track(this);
  tracked_ = true;
}

void ServerCall::Complete(bool on_io_thread) {
  const Status status = Execute();
  if (!one_way_) {
    connection_->SendResponse(request_id_, serializer_, status, response_, on_io_thread);
  }
}

Status ServerCall::Execute() {
  // Work nobody waits for any more is skipped: running it would only delay the calls behind it.
  if (context_->cancelled()) {
    return Status(StatusCode::CANCELLED,
                  "call to " + method_.full_name + " was cancelled by the caller before it ran");
  }
  if (context_->deadline_passed()) {
    return Status(StatusCode::DEADLINE_EXCEEDED,
                  "deadline of " + method_.full_name + " passed before it ran");
  }
  return connection_->filters().Run(*context_, *request_, [this] { return Invoke(); });
}

Status ServerCall::Invoke() {
  try {
    return method_.method->invoke(*method_.service, *context_, *request_, response_);
  } catch (const std::exception& e) {
    Logger().warn("ferry server: handler {} threw: {}", method_.full_name, e.what());
    return Status(StatusCode::INTERNAL, "handler " + method_.full_name + " threw: " + e.what());
  } catch (...) {
    Logger().warn("ferry server: handler {} threw a non-standard exception", method_.full_name);
    return Status(StatusCode::INTERNAL,
                  "handler " + method_.full_name + " threw a non-standard exception");
  }
}

}  // namespace ferry::server
