#pragma once

#include <google/protobuf/message.h>

#include <string>
#include <string_view>

#include "ferry/codec/status.h"

// protobuf's JSON mapping for the gateway, as protobuf 3.21's JsonStringToMessage (unknown
// fields refused) and MessageToJsonString (default options) have it, without their cost: they
// resolve the type anew on every call and convert through the binary format. Messages whose
// types reach a well-known type, a group, an extension or a proto2 file are passed to them.
namespace ferry::http {

// Replaces `message`'s content with `json`'s. INVALID_ARGUMENT names the field and what is wrong
// with its value (`items[2].count: expected an integer, got 1.5`) or where the JSON breaks.
Status ParseJson(std::string_view json, google::protobuf::Message* message);

// Appends `message` as JSON to `json`. Fails (INTERNAL) only where protobuf does: messages
// nested deeper than 64.
Status ToJson(const google::protobuf::Message& message, std::string* json);

}  // namespace ferry::http
