#include "ferry/codec/json_codec.h"

#include <google/protobuf/message.h>
#include <google/protobuf/util/json_util.h>

#include "json_parser.h"
#include "json_plan.h"
#include "json_printer.h"
#include "json_shape.h"
#include "json_shown_text.h"

namespace ferry::codec {
namespace {

// protobuf's messages quote keys and values as they were written.
constexpr size_t kShownProtobufError = 1024;

Status ProtobufParse(std::string_view json, const JsonParseOptions& options,
                     google::protobuf::Message* message) {
  google::protobuf::util::JsonParseOptions protobuf_options;
  protobuf_options.ignore_unknown_fields = options.ignore_unknown_fields;
  const auto parsed = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(json.data(), json.size()), message, protobuf_options);
  if (parsed.ok()) return Status::Ok();
  return Status(StatusCode::INVALID_ARGUMENT,
                json::ShownText(std::string_view(parsed.message().data(), parsed.message().size()),
                                kShownProtobufError));
}

}  // namespace

Status ParseJson(std::string_view json, google::protobuf::Message* message,
                 const JsonParseOptions& options) {
  const json::MessagePlan& plan = json::PlanFor(message->GetDescriptor());
  if (plan.fast) return json::ParseFast(json, plan, options, message);
  if (Status shape = json::CheckShape(json); !shape.ok()) return shape;
  return ProtobufParse(json, options, message);
}

Status ToJson(const google::protobuf::Message& message, std::string* json) {
  const json::MessagePlan& plan = json::PlanFor(message.GetDescriptor());
  if (!plan.fast) {
    const auto printed = google::protobuf::util::MessageToJsonString(message, json);
    if (printed.ok()) return Status::Ok();
    return Status(StatusCode::INTERNAL, std::string(printed.message()));
  }
  const size_t start = json->size();
  if (json::PrintFast(message, plan, json)) return Status::Ok();
  json->resize(start);
  return Status(StatusCode::INTERNAL,
                message.GetTypeName() + " nests messages deeper than 64, as JSON");
}

}  // namespace ferry::codec
