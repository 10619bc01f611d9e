#pragma once

#include <google/protobuf/message.h>

#include <string_view>

#include "ferry/codec/json_codec.h"
#include "ferry/codec/status.h"
#include "json_plan.h"

namespace ferry::codec::json {

// Replaces `message`'s content with `json`'s, `plan` being its (fast) plan, under the limits of
// ParseJson. Refusals are INVALID_ARGUMENT naming the field path and the offending value, or the
// offset of bad syntax.
Status ParseFast(std::string_view json, const MessagePlan& plan, const JsonParseOptions& options,
                 google::protobuf::Message* message);

}  // namespace ferry::codec::json
