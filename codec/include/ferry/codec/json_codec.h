#pragma once

#include <string>
#include <string_view>

#include "ferry/codec/status.h"

namespace google::protobuf {
class Message;
}

// protobuf's JSON mapping, as the HTTP gateway and the binary protocol's `json` serializer read
// and write it: what protobuf 3.21's JsonStringToMessage and MessageToJsonString do, without
// their cost (they resolve the type anew on every call and convert through the binary format),
// and within limits that keep any text's cost linear in its size: hostile text is refused, not
// worked through. Messages whose types reach a well-known type, a group, an extension or a
// proto2 file are converted by protobuf, on text that has passed the same limits.
namespace ferry::codec {

// Objects and arrays open at once, the root included, counted together: a text opening one more
// is refused where it does, before anything inside is read.
inline constexpr int kMaxJsonDepth = 100;

struct JsonParseOptions {
  // Skip fields the type does not have, and enum values given by a name it does not have, as
  // protobuf's option of the name does: a newer peer may send them. The gateway refuses them.
  bool ignore_unknown_fields = false;
};

// Replaces `message`'s content with `json`'s. The text must be RFC 8259 JSON, nested at most
// kMaxJsonDepth deep, giving no field and no map key twice in one object. INVALID_ARGUMENT names
// the field and what is wrong with its value (`items[2].count: expected an integer, got 1.5`), or
// where the JSON breaks; keys and values are quoted escaped and cut short.
Status ParseJson(std::string_view json, google::protobuf::Message* message,
                 const JsonParseOptions& options = {});

// Appends `message` as JSON to `json`. Fails (INTERNAL) only where protobuf does: messages
// nested deeper than 64.
Status ToJson(const google::protobuf::Message& message, std::string* json);

}  // namespace ferry::codec
