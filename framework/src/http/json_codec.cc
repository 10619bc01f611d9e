#include "http/json_codec.h"

#include <google/protobuf/util/json_util.h>

#include "http/json_parser.h"
#include "http/json_plan.h"
#include "http/json_printer.h"

namespace ferry::http {
namespace {

Status ProtobufParse(std::string_view json, google::protobuf::Message* message) {
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  const auto parsed = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(json.data(), json.size()), message, options);
  if (parsed.ok()) return Status::Ok();
  return Status(StatusCode::INVALID_ARGUMENT, std::string(parsed.message()));
}

}  // namespace

Status ParseJson(std::string_view json, google::protobuf::Message* message) {
  const MessagePlan& plan = PlanFor(message->GetDescriptor());
  if (!plan.fast) return ProtobufParse(json, message);
  JsonParseOutcome outcome = ParseFast(json, plan, message);
  // protobuf's reader also takes single quotes, bare keys and trailing commas; what it reads,
  // it has the last word on. The error stays ours, with the offset RFC 8259 breaks at.
  if (outcome.syntax_error && ProtobufParse(json, message).ok()) return Status::Ok();
  return std::move(outcome.status);
}

Status ToJson(const google::protobuf::Message& message, std::string* json) {
  const MessagePlan& plan = PlanFor(message.GetDescriptor());
  if (!plan.fast) {
    const auto printed = google::protobuf::util::MessageToJsonString(message, json);
    if (printed.ok()) return Status::Ok();
    return Status(StatusCode::INTERNAL, std::string(printed.message()));
  }
  const size_t start = json->size();
  if (PrintFast(message, plan, json)) return Status::Ok();
  json->resize(start);
  return Status(StatusCode::INTERNAL,
                message.GetTypeName() + " nests messages deeper than 64, as JSON");
}

}  // namespace ferry::http
