#pragma once

#include <google/protobuf/descriptor.h>

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ferry::codec::json {

struct MessagePlan;

// What the JSON codec needs of one field, worked out once.
struct FieldPlan {
  const google::protobuf::FieldDescriptor* field;
  // `"jsonName":`, escaped as protobuf escapes it.
  std::string key;
  // The message type of a message field, or of a map's values; null otherwise.
  const MessagePlan* message = nullptr;
  // A map's key and value fields (its entry type's fields 1 and 2).
  const google::protobuf::FieldDescriptor* map_key = nullptr;
  const google::protobuf::FieldDescriptor* map_value = nullptr;
  // The oneof the field belongs to, or -1 (also for the oneof of its own a proto3 `optional`
  // field has: giving that one twice is giving the field twice).
  int oneof = -1;
};

struct MessagePlan {
  const google::protobuf::Descriptor* descriptor;
  // False: the message is left to protobuf's own converter (see PlanFor).
  bool fast = false;
  // In field-number order, the order protobuf prints in (it prints the binary serialization).
  std::vector<FieldPlan> fields;
  // Both the json_name and the original name of every field.
  std::unordered_map<std::string_view, const FieldPlan*> by_name;

  const FieldPlan* Find(std::string_view name) const {
    const auto it = by_name.find(name);
    return it == by_name.end() ? nullptr : it->second;
  }
};

// The plan of a message type, built on first use and kept forever (thread-safe). It is fast
// when nothing reachable through its message fields is a google.protobuf type (well-known
// types have JSON forms of their own), a group, an extendable message or from a proto2 file,
// and the type is from the generated pool (other pools may be freed, and their descriptors'
// addresses reused).
const MessagePlan& PlanFor(const google::protobuf::Descriptor* descriptor);

}  // namespace ferry::codec::json
