#pragma once

#include <google/protobuf/message.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "ferry/codec/extension_registry.h"
#include "ferry/codec/serializer.h"

// What the test plugins register as a serializer: protobuf's binary format under a wire id and a
// name of their choosing.
class TestSerializer final : public ferry::codec::Serializer {
 public:
  TestSerializer(uint8_t id, std::string name) : id_(id), name_(std::move(name)) {}
  uint8_t id() const override { return id_; }
  std::string_view name() const override { return name_; }
  bool Serialize(const google::protobuf::Message& message, std::string* out) const override {
    return message.AppendToString(out);
  }
  bool Parse(std::string_view data, google::protobuf::Message* message) const override {
    return message->ParseFromArray(data.data(), static_cast<int>(data.size()));
  }

 private:
  const uint8_t id_;
  const std::string name_;
};

inline void RegisterTestSerializer(ferry::ExtensionRegistry& registry, uint8_t id,
                                   const std::string& name) {
  registry.Register<ferry::codec::Serializer>(
      name, [id, name] { return std::make_shared<TestSerializer>(id, name); });
}
