#pragma once

#include <google/protobuf/message.h>

#include <string>

#include "json_plan.h"

namespace ferry::codec::json {

// Appends `message`'s JSON, `plan` being its (fast) plan, as protobuf 3.21's MessageToJsonString
// prints it with default options. False, as protobuf fails, when messages nest deeper than 64.
bool PrintFast(const google::protobuf::Message& message, const MessagePlan& plan, std::string* out);

}  // namespace ferry::codec::json
