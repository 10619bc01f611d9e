#include "client/request_meta.h"

#include "ferry/codec/frame_decoder.h"
#include "ferry/rpc_meta.pb.h"
#include "trace/trace_ids.h"

namespace ferry::client {

namespace {

// The fields either form sets alike.
void FillFixedFields(const MethodSpec& method, const CallOptions& options, RequestLimits limits,
                     wire::RpcMeta* meta) {
  meta->Clear();
  meta->set_service(method.service.data(), method.service.size());
  meta->set_method(method.method.data(), method.method.size());
  meta->set_timeout_us(limits.timeout_us);
  if (limits.max_response_bytes != codec::kDefaultMaxFrameBytes) {
    meta->set_max_response_bytes(limits.max_response_bytes);
  }
  meta->set_call_id(options.request_id);
  for (const auto& [key, value] : options.attachments) (*meta->mutable_attachments())[key] = value;
  // Every call is a span of its own, a child of the span the caller was in (if any).
  meta->set_span_id(trace::RandomSpanId());
  if (!options.parent_span_id.empty()) {
    meta->set_parent_span_id(trace::ParseSpanId(options.parent_span_id));
  }
  meta->set_sampled(options.sampled);
}

}  // namespace

void FillRequestMeta(const MethodSpec& method, const CallOptions& options, RequestLimits limits,
                     wire::RpcMeta* meta) {
  FillFixedFields(method, options, limits, meta);
  if (!trace::IsTraceId(options.trace_id)) {
    trace::FillRandomTraceId(meta->mutable_trace_id());
  } else {
    meta->set_trace_id(options.trace_id);
  }
  if (!options.auth_token.empty()) meta->set_auth_token(options.auth_token);
}

void FillRequestMeta(const MethodSpec& method, CallOptions&& options, RequestLimits limits,
                     wire::RpcMeta* meta) {
  FillFixedFields(method, options, limits, meta);
  if (!trace::IsTraceId(options.trace_id)) {
    trace::FillRandomTraceId(meta->mutable_trace_id());
  } else {
    meta->mutable_trace_id()->swap(options.trace_id);
  }
  if (!options.auth_token.empty()) meta->mutable_auth_token()->swap(options.auth_token);
}

}  // namespace ferry::client
