#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace google::protobuf {
class Message;
}

namespace ferry::codec {

// Wire ids recorded in the frame header. Ids 0-127 are reserved for Ferry, 128-255 for plugins
// (as for compressors); ExtensionRegistry refuses an extension outside its range.
namespace serializer_id {
inline constexpr uint8_t kProtobuf = 0;
// protobuf's JSON mapping, read and written by ferry/codec/json_codec.h within its limits.
inline constexpr uint8_t kJson = 1;
}  // namespace serializer_id

class Serializer {
 public:
  static constexpr std::string_view kExtensionKind = "serializer";

  virtual ~Serializer() = default;
  virtual uint8_t id() const = 0;
  virtual std::string_view name() const = 0;
  // Appends the encoding of `message` to `out`.
  virtual bool Serialize(const google::protobuf::Message& message, std::string* out) const = 0;
  virtual bool Parse(std::string_view data, google::protobuf::Message* message) const = 0;
};

// Lookups through ExtensionRegistry, cached; nullptr when unknown. Safe from any thread.
const Serializer* FindSerializer(std::string_view name);
const Serializer* FindSerializer(uint8_t id);

}  // namespace ferry::codec
