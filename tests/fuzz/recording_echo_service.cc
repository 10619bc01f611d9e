#include "recording_echo_service.h"

#include <utility>

namespace ferry::fuzz {

Status RecordingEchoService::Echo(ServerContext& context, const demo::EchoRequest& request,
                                  demo::EchoResponse* response) {
  Record(context, request.payload());
  response->set_payload(request.payload());
  return Status::Ok();
}

Status RecordingEchoService::Delay(ServerContext& context, const demo::DelayRequest& request,
                                   demo::EchoResponse* response) {
  Record(context, request.payload());
  response->set_payload(request.payload());
  return Status::Ok();
}

std::optional<SeenCall> RecordingEchoService::Take() {
  std::lock_guard lock(mutex_);
  return std::exchange(seen_, std::nullopt);
}

void RecordingEchoService::Record(const ServerContext& context, const std::string& payload) {
  SeenCall seen{.method = std::string(context.method()),
                .deadline = context.deadline(),
                .trace_id = context.trace_id(),
                .span_id = context.span_id(),
                .parent_span_id = context.parent_span_id(),
                .sampled = context.sampled(),
                .request_id = context.request_id(),
                .auth_token = context.auth_token(),
                .attachments = context.attachments(),
                .payload = payload};
  std::lock_guard lock(mutex_);
  seen_ = std::move(seen);
}

}  // namespace ferry::fuzz
