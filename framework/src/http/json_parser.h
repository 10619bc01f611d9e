#pragma once

#include <google/protobuf/message.h>

#include <string_view>

#include "ferry/codec/status.h"
#include "http/json_plan.h"

namespace ferry::http {

struct JsonParseOutcome {
  Status status;
  // The text is not JSON as RFC 8259 has it (protobuf's own reader is laxer).
  bool syntax_error = false;
};

// Replaces `message`'s content with `json`'s, `plan` being its (fast) plan. Refusals are
// INVALID_ARGUMENT naming the field path and the offending value, or the offset of bad syntax.
JsonParseOutcome ParseFast(std::string_view json, const MessagePlan& plan,
                           google::protobuf::Message* message);

}  // namespace ferry::http
