#include "server/server_call.h"

#include <google/protobuf/message.h>

#include <exception>
#include <string>
#include <utility>

#include <charconv>

#include "ferry/codec/json_codec.h"
#include "ferry/codec/message_codec.h"
#include "ferry/framework/call_scope.h"
#include "ferry/rpc_meta.pb.h"
#include "http/http_session.h"
#include "logger.h"
#include "server/http_call_context.h"
#include "server/server_connection.h"
#include "stats/framework_metrics.h"
#include "trace/trace_ids.h"

namespace ferry {
namespace {

constexpr uint64_t kMaxTimeoutUs = server::kMaxCallTimeoutUs;

// The call whose handler this thread is running: a completion on it needs no atomic handoff.
thread_local server::ServerCall* invoking = nullptr;

}  // namespace

ServerDone::ServerDone(Target* target) : target_(target), exceptions_(std::uncaught_exceptions()) {}

ServerDone::ServerDone(ServerDone&& other) noexcept
    : target_(std::exchange(other.target_, nullptr)), exceptions_(other.exceptions_) {}

ServerDone::~ServerDone() {
  if (target_ == nullptr) return;
  if (std::uncaught_exceptions() > exceptions_ && target_->TakeOverAfterThrow()) return;
  target_->Complete(
      Status(StatusCode::INTERNAL, "the handler let go of its call without answering it"));
}

void ServerDone::operator()(const Status& status) {
  Target* const target = std::exchange(target_, nullptr);
  if (target == nullptr) return;
  const StatusCode code = status.code();
  if (code == StatusCode::OVERLOADED || code == StatusCode::DRAINING) {
    // These tell a client the call never started, so it goes elsewhere whatever the method; a
    // handler that ran may have had effects, and says only that it could not serve it.
    return target->Complete(Status(
        StatusCode::UNAVAILABLE,
        "the handler answered " + std::string(StatusCodeName(code)) + ": " + status.message()));
  }
  target->Complete(status);
}

namespace server {

ServerCall::ServerCall(std::shared_ptr<ServerConnection> connection,
                       const MethodTable::Entry& method, const codec::FrameHeader& header) {
  Reset(std::move(connection), method, header);
}

ServerCall::ServerCall(std::shared_ptr<ServerConnection> connection,
                       const MethodTable::Entry& method, uint64_t http_exchange) {
  ResetHttp(std::move(connection), method, http_exchange);
}

void ServerCall::ResetHttp(std::shared_ptr<ServerConnection> connection,
                           const MethodTable::Entry& method, uint64_t http_exchange) {
  codec::FrameHeader header;
  header.request_id = http_exchange;
  Reset(std::move(connection), method, header);
  http_ = true;
}

ServerCall::~ServerCall() {
  ReleaseBody();
  // Prepared but never answered: the pool refused it, being full or stopping.
  if (counted_) {
    method_->metrics->Finished(StatusCode::OVERLOADED, ServerContext::Clock::now() - received_);
  }
  // Last: once the call is untracked the server may go.
  if (tracked_) ServerConnection::Untrack(std::move(connection_), this);
}

void ServerCall::Reset(std::shared_ptr<ServerConnection> connection,
                       const MethodTable::Entry& method, const codec::FrameHeader& header) {
  ReleaseBody();
  connection_ = std::move(connection);
  method_ = &method;
  request_id_ = header.request_id;
  serializer_ = header.serializer;
  one_way_ = (header.flags & codec::flags::kOneWay) != 0;
  http_ = false;
  completed_while_invoking_ = false;
  dropped_by_throw_ = false;
  handoff_.store(kRunning, std::memory_order_relaxed);
  // Cleared rather than freed: their strings keep their capacity for the next call.
  if (messages_method_ == &method) {
    request_->Clear();
    response_->Clear();
  } else {
    request_.reset(method.method->request_prototype->New());
    response_.reset(method.method->response_prototype->New());
    messages_method_ = &method;
  }
}

Status ServerCall::Prepare(codec::Frame* frame, wire::RpcMeta* meta,
                           ServerContext::Clock::time_point received, size_t max_body_bytes,
                           bool* answered) {
  return Admitted(Fill(frame, meta, received, max_body_bytes), answered);
}

Status ServerCall::PrepareHttp(const HttpRequest& request,
                               ServerContext::Clock::time_point received, bool* answered) {
  return Admitted(FillHttp(request, received), answered);
}

Status ServerCall::Admitted(Status filled, bool* answered) {
  *answered = false;
  if (!filled.ok()) return Counted(std::move(filled));
  Status admitted =
      connection_->filters().Admit(context_, body_, framing_, method_->filter_states, &filters_);
  if (admitted.ok()) return Counted(Status::Ok());
  static_cast<void>(Counted(admitted));  // the refusing filter answered it already
  // The filters that admitted it see its end with an empty request, not a stale one.
  body_kind_ = Body::kDecoded;
  request_->Clear();
  Answer(admitted);
  *answered = true;
  return admitted;
}

Status ServerCall::Counted(Status prepared) {
  stats::MethodMetrics* const metrics = method_->metrics;
  if (metrics == nullptr) return prepared;
  if (prepared.ok()) {
    metrics->Started();
    counted_ = true;
  } else {
    metrics->Record(prepared.code(), std::chrono::nanoseconds::zero());
  }
  return prepared;
}

void ServerCall::Run() {
  // Inline methods reach here only from the JSON gateway, which queued nothing.
  if (counted_ && !method_->method->spec->inline_method) {
    stats::Server().queue_wait->Observe(ServerContext::Clock::now() - received_);
  }
  Invoke();
}

Status ServerCall::Fill(codec::Frame* frame, wire::RpcMeta* meta,
                        ServerContext::Clock::time_point received, size_t max_body_bytes) {
  ServerContext& context = context_;
  received_ = received;
  context.service_ = method_->service_name;
  context.method_ = method_->method->spec->method;
  context.scope_.deadline = meta->timeout_us() != 0 && meta->timeout_us() <= kMaxTimeoutUs
                                ? received + std::chrono::microseconds(meta->timeout_us())
                                : ServerContext::Clock::time_point::max();
  context.peer_.assign(connection_->peer());
  context.client_address_.assign(connection_->peer_address());
  context.peer_identity_.assign(connection_->peer_identity());
  context.scope_.trace_id.swap(*meta->mutable_trace_id());
  trace::FormatSpanId(meta->span_id(), &context.scope_.span_id);
  if (trace::IsTraceId(context.scope_.trace_id)) {
    trace::FormatSpanId(meta->parent_span_id(), &context.parent_span_id_);
  } else {
    // Whatever else the peer sent (up to max_meta_bytes of any bytes) would go into every log
    // line, the status page and downstream calls: the call starts a trace of its own instead, as
    // a gateway call with a malformed traceparent does.
    trace::FillRandomTraceId(&context.scope_.trace_id);
    context.parent_span_id_.clear();
  }
  context.scope_.sampled = meta->sampled();
  context.request_id_ = meta->call_id();
  max_response_bytes_ =
      meta->max_response_bytes() != 0 ? meta->max_response_bytes() : codec::kDefaultMaxFrameBytes;
  framing_ = RequestFraming{.timeout_us = meta->timeout_us(),
                            .serializer = frame->header.serializer,
                            .compression = frame->header.compression,
                            .one_way = one_way_,
                            .max_response_bytes = max_response_bytes_};
  context.auth_token_.swap(*meta->mutable_auth_token());
  context.verified_caller_.clear();
  context.verified_user_.clear();
  context.verified_roles_.clear();
  context.attachments_.clear();
  if (!meta->attachments().empty()) {
    context.attachments_.insert(meta->attachments().begin(), meta->attachments().end());
  }
  context.cancelled_.store(false, std::memory_order_relaxed);
  body_kind_ = Body::kFrame;
  body_header_ = frame->header;
  body_.swap(frame->body);
  ChargeBody();
  max_body_bytes_ = max_body_bytes;
  return Status::Ok();
}

Status ServerCall::FillHttp(const HttpRequest& request, ServerContext::Clock::time_point received) {
  received_ = received;
  context_.service_ = method_->service_name;
  context_.method_ = method_->method->spec->method;
  if (Status s = HttpCallContext::Fill(request, *connection_, received, &context_, &framing_);
      !s.ok()) {
    return s;
  }
  body_kind_ = Body::kJson;
  body_.assign(request.body());
  ChargeBody();
  return Status::Ok();
}

Status ServerCall::DecodeBody() {
  Status decoded;
  switch (std::exchange(body_kind_, Body::kDecoded)) {
    case Body::kDecoded:
      return Status::Ok();
    case Body::kFrame:
      decoded = codec::ParseBody(body_header_, body_, max_body_bytes_, request_.get());
      break;
    case Body::kJson:
      if (const Status parsed =
              codec::ParseJson(body_.empty() ? std::string_view("{}") : body_, request_.get());
          !parsed.ok()) {
        decoded = Status(
            StatusCode::INVALID_ARGUMENT,
            "the body is not a valid " + request_->GetTypeName() + " in JSON: " + parsed.message());
      }
      break;
  }
  // A large body's bytes are not kept with the message they became.
  if (body_.capacity() > codec::kRetainedBufferBytes) std::string().swap(body_);
  ReleaseBody();
  return decoded;
}

void ServerCall::ChargeBody() {
  ReleaseBody();
  body_budget_ = &connection_->core().buffers;
  charged_body_ = body_.capacity();
  body_budget_->Charge(static_cast<int64_t>(charged_body_));
}

void ServerCall::ReleaseBody() {
  if (body_budget_ == nullptr) return;
  body_budget_->Charge(-static_cast<int64_t>(std::exchange(charged_body_, 0)));
  body_budget_ = nullptr;
}

void ServerCall::Track() {
  connection_->Track(this);
  tracked_ = true;
}

bool ServerCall::TakeOverAfterThrow() {
  if (invoking != this) return false;
  dropped_by_throw_ = true;
  return true;
}

bool ServerCall::RunInline() {
  held_by_connection_ = true;
  if (!Invoke()) return false;  // went on asynchronously, and may be gone already
  connection_.reset();          // the connection does not hold itself
  return true;
}

bool ServerCall::Invoke() {
  ServerCall* const previous = invoking;
  invoking = this;
  StartHandler();
  invoking = previous;
  // Not completed yet: its completion, maybe on another thread right now, lets go of it.
  if (!completed_while_invoking_ && !HandlerReturned()) return false;
  // Completed: nobody else touches the call any more.
  if (held_by_connection_) {
    if (tracked_) {
      ServerConnection::Untrack(connection_, this);  // on the IO thread, which holds the connection
      tracked_ = false;
    }
    return true;
  }
  Release();
  return true;
}

void ServerCall::StartHandler() {
  // Work nobody waits for any more is skipped: running it would only delay the calls behind it.
  if (context_.cancelled()) {
    return Complete(
        Status(StatusCode::CANCELLED,
               "call to " + method_->full_name + " was cancelled by the caller before it ran"));
  }
  if (context_.deadline_passed()) {
    return Complete(Status(StatusCode::DEADLINE_EXCEEDED,
                           "deadline of " + method_->full_name + " passed before it ran"));
  }
  if (Status decoded = DecodeBody(); !decoded.ok()) return Complete(decoded);
  const filter::ServerFilterChain& filters = connection_->filters();
  if (Status status = filters.Enter(context_, *request_, method_->filter_states, &filters_);
      !status.ok()) {
    return Complete(status);
  }
  const ScopedCallScope scope(&context_.scope_);
  const auto threw = [this](const char* what) {
    Logger().warn("ferry server: handler {} threw: {}", method_->full_name, what);
    // Unless the handler handed its completion on before throwing: whoever holds it answers.
    if (dropped_by_throw_) {
      dropped_by_throw_ = false;
      Complete(Status(StatusCode::INTERNAL, "handler " + method_->full_name + " threw: " + what));
    }
  };
  try {
    method_->method->invoke(*method_->service, context_, *request_, response_.get(),
                            ServerDone(this));
  } catch (const std::exception& e) {
    threw(e.what());
  } catch (...) {
    threw("a non-standard exception");
  }
  if (dropped_by_throw_) {
    // The completion was destroyed while an exception the handler caught itself was in flight,
    // and nobody holds it any more: nobody else would ever answer.
    dropped_by_throw_ = false;
    Complete(Status(StatusCode::INTERNAL, "handler " + method_->full_name +
                                              " let go of its call while handling an exception"));
  }
}

bool ServerCall::HandlerReturned() {
  const bool held = held_by_connection_;
  if (held) {
    // The connection's next inline call gets a new object; this one owns itself until its
    // completion, and is waited for and cancelled like a pool call meanwhile.
    held_by_connection_ = false;
    Track();
  }
  if (handoff_.exchange(kHandlerReturned, std::memory_order_acq_rel) != kCompleted) return false;
  // Completed on another thread meanwhile, which left the call to this one.
  held_by_connection_ = held;
  return true;
}

void ServerCall::Complete(const Status& status) {
  Answer(status);
  if (invoking == this) {
    completed_while_invoking_ = true;
    return;
  }
  if (handoff_.exchange(kCompleted, std::memory_order_acq_rel) == kHandlerReturned) Release();
}

void ServerCall::Answer(const Status& status) {
  connection_->filters().Leave(context_, *request_, method_->filter_states, status, &filters_);
  const ServerContext::Clock::time_point now = ServerContext::Clock::now();
  if (counted_) {
    counted_ = false;
    method_->metrics->Finished(status.code(), now - received_);
  }
  NoteIfSlow(status, now);
  if (http_) {
    connection_->AnswerHttp(request_id_, http::HttpSession::CallAnswer(status, response_.get()));
    return;
  }
  if (!one_way_) {
    connection_->SendResponse(request_id_, serializer_, status, response_.get(),
                              connection_->InReadLoop(), max_response_bytes_);
  }
}

void ServerCall::NoteIfSlow(const Status& status, ServerContext::Clock::time_point now) {
  const std::chrono::nanoseconds slow = connection_->core().slow_call;
  if (slow.count() == 0 || now - received_ <= slow) return;
  connection_->core().slow_calls.Record(SlowCall{.ended = std::chrono::system_clock::now(),
                                                 .call = method_->full_name,
                                                 .latency = now - received_,
                                                 .status = status.code(),
                                                 .trace_id = context_.trace_id(),
                                                 .span_id = context_.span_id(),
                                                 .parent_span_id = context_.parent_span_id(),
                                                 .peer = context_.peer()});
}

void ServerCall::Release() { delete this; }

}  // namespace server
}  // namespace ferry
