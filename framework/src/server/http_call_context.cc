#include "server/http_call_context.h"

#include <charconv>
#include <string>

#include "ferry/codec/serializer.h"
#include "server/server_connection.h"
#include "trace/trace_ids.h"

namespace ferry::server {
namespace {

// A gateway request's `X-Ferry-Attachment-<name>: <value>` header is the call's attachment
// <name>, lower-cased (HTTP names are case-insensitive, attachment names are not), so that
// what travels in attachments over the binary protocol (a user token) travels over HTTP too.
void AddHeaderAttachment(std::string_view header, std::string_view value,
                         Attachments* attachments) {
  constexpr std::string_view kPrefix = "x-ferry-attachment-";
  if (header.size() <= kPrefix.size()) return;
  std::string name(header);
  for (char& c : name) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (!std::string_view(name).starts_with(kPrefix)) return;
  (*attachments)[name.substr(kPrefix.size())].assign(value);
}

}  // namespace

Status HttpCallContext::Fill(const HttpRequest& request, const ServerConnection& connection,
                             ServerContext::Clock::time_point received, ServerContext* context,
                             RequestFraming* framing) {
  *framing = RequestFraming{.serializer = codec::serializer_id::kJson};
  context->peer_.assign(connection.peer());
  context->client_address_.assign(request.client_address());
  context->peer_identity_.assign(connection.peer_identity());
  context->scope_.deadline = ServerContext::Clock::time_point::max();
  if (const std::string_view timeout = request.Header("X-Ferry-Timeout-Ms"); !timeout.empty()) {
    uint64_t ms = 0;
    const auto [end, error] = std::from_chars(timeout.data(), timeout.data() + timeout.size(), ms);
    // Divided, not multiplied: ms * 1000 wraps from 18446744073709552 on, and passed wrapped.
    if (error != std::errc() || end != timeout.data() + timeout.size() || ms == 0 ||
        ms > kMaxCallTimeoutUs / 1000) {
      return Status(StatusCode::INVALID_ARGUMENT,
                    "header X-Ferry-Timeout-Ms: expected milliseconds from 1, got '" +
                        std::string(timeout) + "'");
    }
    context->scope_.deadline = received + std::chrono::milliseconds(ms);
    framing->timeout_us = ms * 1000;
  }
  // The caller's traceparent, if any: this call is a span of its trace, a child of its span.
  trace::TraceParent parent;
  if (trace::ParseTraceParent(request.Header("traceparent"), &parent)) {
    context->scope_.trace_id.assign(parent.trace_id);
    context->parent_span_id_.assign(parent.parent_span_id);
    context->scope_.sampled = parent.sampled;
  } else {
    trace::FillRandomTraceId(&context->scope_.trace_id);
    context->parent_span_id_.clear();
    context->scope_.sampled = true;
  }
  trace::FormatSpanId(trace::RandomSpanId(), &context->scope_.span_id);
  context->request_id_ = 0;
  if (const std::string_view id = request.Header("X-Ferry-Call-Id"); !id.empty()) {
    const auto [end, error] =
        std::from_chars(id.data(), id.data() + id.size(), context->request_id_);
    if (error != std::errc() || end != id.data() + id.size()) {
      return Status(
          StatusCode::INVALID_ARGUMENT,
          "header X-Ferry-Call-Id: expected an unsigned integer, got '" + std::string(id) + "'");
    }
  }
  const std::string_view authorization = request.Header("Authorization");
  constexpr std::string_view kBearer = "Bearer ";
  context->auth_token_.assign(authorization.starts_with(kBearer)
                                  ? authorization.substr(kBearer.size())
                                  : std::string_view());
  context->verified_caller_.clear();
  context->verified_user_.clear();
  context->verified_roles_.clear();
  context->attachments_.clear();
  for (const auto& [name, value] : request.headers())
    AddHeaderAttachment(name, value, &context->attachments_);
  context->cancelled_.store(false, std::memory_order_relaxed);
  return Status::Ok();
}

}  // namespace ferry::server
