#include <google/protobuf/message.h>

#include "builtin_extensions.h"
#include "ferry/codec/extension_registry.h"
#include "ferry/codec/json_codec.h"
#include "ferry/codec/serializer.h"
#include "json_body.h"

namespace ferry::codec {
namespace {

class ProtobufBinarySerializer final : public Serializer {
 public:
  uint8_t id() const override { return serializer_id::kProtobuf; }
  std::string_view name() const override { return "protobuf"; }
  bool Serialize(const google::protobuf::Message& message, std::string* out) const override {
    return message.AppendToString(out);
  }
  bool Parse(std::string_view data, google::protobuf::Message* message) const override {
    return message->ParseFromArray(data.data(), static_cast<int>(data.size()));
  }
};

// protobuf's JSON mapping, readable on the wire and by non-C++ peers, through the codec the HTTP
// gateway uses: the same text is read alike, within the same limits, on either path.
class JsonSerializer final : public Serializer {
 public:
  uint8_t id() const override { return serializer_id::kJson; }
  std::string_view name() const override { return "json"; }
  bool Serialize(const google::protobuf::Message& message, std::string* out) const override {
    return ToJson(message, out).ok();
  }
  bool Parse(std::string_view data, google::protobuf::Message* message) const override {
    return ParseJsonBody(data, message).ok();
  }
};

}  // namespace

Status ParseJsonBody(std::string_view body, google::protobuf::Message* message) {
  // A newer peer may send fields this build does not know yet.
  return ParseJson(body, message, {.ignore_unknown_fields = true});
}

void RegisterProtobufSerializers(ExtensionRegistry& registry) {
  auto binary = std::make_shared<ProtobufBinarySerializer>();
  auto json = std::make_shared<JsonSerializer>();
  registry.Register<Serializer>("protobuf", [binary] { return binary; });
  registry.Register<Serializer>("json", [json] { return json; });
}

}  // namespace ferry::codec
