#include <google/protobuf/message.h>
#include <google/protobuf/util/json_util.h>

#include "builtin_extensions.h"
#include "ferry/codec/extension_registry.h"
#include "ferry/codec/serializer.h"

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

// Protobuf's canonical JSON mapping; slower, but readable on the wire and by non-C++ peers.
class ProtobufJsonSerializer final : public Serializer {
 public:
  uint8_t id() const override { return serializer_id::kJson; }
  std::string_view name() const override { return "json"; }
  bool Serialize(const google::protobuf::Message& message, std::string* out) const override {
    std::string json;
    if (!google::protobuf::util::MessageToJsonString(message, &json).ok()) return false;
    out->append(json);
    return true;
  }
  bool Parse(std::string_view data, google::protobuf::Message* message) const override {
    google::protobuf::util::JsonParseOptions options;
    // A newer peer may send fields this build does not know yet.
    options.ignore_unknown_fields = true;
    return google::protobuf::util::JsonStringToMessage(
               google::protobuf::StringPiece(data.data(), data.size()), message, options)
        .ok();
  }
};

}  // namespace

void RegisterProtobufSerializers(ExtensionRegistry& registry) {
  auto binary = std::make_shared<ProtobufBinarySerializer>();
  auto json = std::make_shared<ProtobufJsonSerializer>();
  registry.Register<Serializer>("protobuf", [binary] { return binary; });
  registry.Register<Serializer>("json", [json] { return json; });
}

}  // namespace ferry::codec
