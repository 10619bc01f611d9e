#pragma once

#include <string_view>

#include "ferry/codec/status.h"

namespace google::protobuf {
class Message;
}

namespace ferry::codec {

// How the json serializer reads a body, with the reason of a refusal, which ParseBody passes on
// (Serializer::Parse only says whether).
Status ParseJsonBody(std::string_view body, google::protobuf::Message* message);

}  // namespace ferry::codec
