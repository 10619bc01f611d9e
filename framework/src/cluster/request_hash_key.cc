#include "cluster/request_hash_key.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <charconv>
#include <string>

#include "ferry/framework/hash_key.h"

namespace ferry::cluster {
namespace {

using google::protobuf::FieldDescriptor;

template <class Integer>
uint64_t HashDecimal(Integer value) {
  char text[24];
  const auto end = std::to_chars(text, text + sizeof text, value).ptr;
  return HashKey(std::string_view(text, static_cast<size_t>(end - text)));
}

}  // namespace

std::optional<uint64_t> RequestHashKey::Of(const google::protobuf::Message& request) const {
  const FieldDescriptor* field = request.GetDescriptor()->FindFieldByName(field_);
  if (field == nullptr || field->is_repeated()) return std::nullopt;
  const google::protobuf::Reflection* reflection = request.GetReflection();
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_STRING: {
      std::string scratch;
      return HashKey(reflection->GetStringReference(request, field, &scratch));
    }
    case FieldDescriptor::CPPTYPE_INT32:
      return HashDecimal(reflection->GetInt32(request, field));
    case FieldDescriptor::CPPTYPE_INT64:
      return HashDecimal(reflection->GetInt64(request, field));
    case FieldDescriptor::CPPTYPE_UINT32:
      return HashDecimal(reflection->GetUInt32(request, field));
    case FieldDescriptor::CPPTYPE_UINT64:
      return HashDecimal(reflection->GetUInt64(request, field));
    case FieldDescriptor::CPPTYPE_ENUM:
      return HashDecimal(reflection->GetEnumValue(request, field));
    default:
      return std::nullopt;
  }
}

}  // namespace ferry::cluster
