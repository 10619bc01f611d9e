#include "json_value.h"

#include "json_scalar.h"
#include "json_shown_text.h"

namespace ferry::codec::json {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

std::string Mismatch(const std::string& expected, const JsonScalar& value) {
  return "expected " + expected + ", got " + Describe(value);
}

template <typename T>
std::string ReadInteger(const JsonScalar& value, const FieldDescriptor* field, T* number) {
  Conversion read = Conversion::kInvalid;
  if (value.kind == JsonScalar::Kind::kNumber) read = NumberToInt(value.text, number);
  if (value.kind == JsonScalar::Kind::kString) read = StringToInt(value.text, number);
  if (read == Conversion::kOk) return {};
  if (read == Conversion::kInvalid) return Mismatch("an integer", value);
  return Mismatch("an integer that fits " + std::string(field->type_name()), value);
}

template <typename T>
std::string ReadReal(const JsonScalar& value, const FieldDescriptor* field, T* number) {
  Conversion read = Conversion::kInvalid;
  if (value.kind == JsonScalar::Kind::kNumber) read = NumberToReal(value.text, number);
  if (value.kind == JsonScalar::Kind::kString) read = StringToReal(value.text, number);
  if (read == Conversion::kOk) return {};
  if (read == Conversion::kInvalid) return Mismatch("a number", value);
  return Mismatch("a number that fits " + std::string(field->type_name()), value);
}

// By name, by number (any: proto3 enums are open), or by a known number written as a string.
std::string ReadEnum(const JsonScalar& value, const FieldDescriptor* field, int* number) {
  const auto* type = field->enum_type();
  int32_t written = 0;
  if (value.kind == JsonScalar::Kind::kString) {
    if (const auto* named = type->FindValueByName(std::string(value.text))) {
      *number = named->number();
      return {};
    }
    if (StringToInt(value.text, &written) == Conversion::kOk &&
        type->FindValueByNumber(written) != nullptr) {
      *number = written;
      return {};
    }
  } else if (value.kind == JsonScalar::Kind::kNumber &&
             NumberToInt(value.text, &written) == Conversion::kOk) {
    *number = written;
    return {};
  }
  return Mismatch(Expected(field), value);
}

// Reads a T with `read`, then sets or adds it with `set` or `add`.
template <typename T, typename Read, typename Set, typename Add>
std::string Store(Message* message, const FieldDescriptor* field, bool to_list,
                  const JsonScalar& value, Read read, Set set, Add add) {
  T number{};
  std::string error = read(value, field, &number);
  if (!error.empty()) return error;
  const Reflection* reflection = message->GetReflection();
  to_list ? (reflection->*add)(message, field, number) : (reflection->*set)(message, field, number);
  return {};
}

}  // namespace

std::string Describe(const JsonScalar& value) {
  switch (value.kind) {
    case JsonScalar::Kind::kNull:
      return "null";
    case JsonScalar::Kind::kBool:
      return value.boolean ? "true" : "false";
    case JsonScalar::Kind::kNumber:
      return ShownText(value.text, 40);
    case JsonScalar::Kind::kString:
      return "'" + ShownText(value.text, 40) + "'";
  }
  return {};
}

std::string Expected(const FieldDescriptor* field) {
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
    case FieldDescriptor::CPPTYPE_INT64:
    case FieldDescriptor::CPPTYPE_UINT32:
    case FieldDescriptor::CPPTYPE_UINT64:
      return "an integer";
    case FieldDescriptor::CPPTYPE_DOUBLE:
    case FieldDescriptor::CPPTYPE_FLOAT:
      return "a number";
    case FieldDescriptor::CPPTYPE_BOOL:
      return "true or false";
    case FieldDescriptor::CPPTYPE_ENUM:
      return "a " + field->enum_type()->full_name() + " name or number";
    case FieldDescriptor::CPPTYPE_STRING:
      return field->type() == FieldDescriptor::TYPE_BYTES ? "base64" : "a string";
    case FieldDescriptor::CPPTYPE_MESSAGE:
      return "an object";
  }
  return {};
}

std::string StoreScalar(Message* message, const FieldDescriptor* field, bool add,
                        const JsonScalar& value, bool skip_unknown_names) {
  using R = Reflection;
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      return Store<int32_t>(message, field, add, value, ReadInteger<int32_t>, &R::SetInt32,
                            &R::AddInt32);
    case FieldDescriptor::CPPTYPE_INT64:
      return Store<int64_t>(message, field, add, value, ReadInteger<int64_t>, &R::SetInt64,
                            &R::AddInt64);
    case FieldDescriptor::CPPTYPE_UINT32:
      return Store<uint32_t>(message, field, add, value, ReadInteger<uint32_t>, &R::SetUInt32,
                             &R::AddUInt32);
    case FieldDescriptor::CPPTYPE_UINT64:
      return Store<uint64_t>(message, field, add, value, ReadInteger<uint64_t>, &R::SetUInt64,
                             &R::AddUInt64);
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return Store<double>(message, field, add, value, ReadReal<double>, &R::SetDouble,
                           &R::AddDouble);
    case FieldDescriptor::CPPTYPE_FLOAT:
      return Store<float>(message, field, add, value, ReadReal<float>, &R::SetFloat, &R::AddFloat);
    case FieldDescriptor::CPPTYPE_ENUM: {
      std::string error =
          Store<int>(message, field, add, value, ReadEnum, &R::SetEnumValue, &R::AddEnumValue);
      // As protobuf's ignore_unknown_fields has it: a string that is no name (nor number) of the
      // enum leaves the field alone, a number that is no integer is still wrong.
      if (!error.empty() && skip_unknown_names && value.kind == JsonScalar::Kind::kString) {
        return {};
      }
      return error;
    }
    case FieldDescriptor::CPPTYPE_BOOL: {
      const auto read = [](const JsonScalar& scalar, const FieldDescriptor* bool_field,
                           bool* flag) -> std::string {
        *flag = scalar.boolean;
        if (scalar.kind == JsonScalar::Kind::kBool ||
            (scalar.kind == JsonScalar::Kind::kString && StringToBool(scalar.text, flag))) {
          return {};
        }
        return Mismatch(Expected(bool_field), scalar);
      };
      return Store<bool>(message, field, add, value, read, &R::SetBool, &R::AddBool);
    }
    case FieldDescriptor::CPPTYPE_STRING: {
      std::string text;
      if (value.kind != JsonScalar::Kind::kString) return Mismatch(Expected(field), value);
      if (field->type() != FieldDescriptor::TYPE_BYTES) {
        text.assign(value.text);
      } else if (!DecodeBase64(value.text, &text)) {
        return Mismatch(Expected(field), value);
      }
      const Reflection* reflection = message->GetReflection();
      add ? reflection->AddString(message, field, std::move(text))
          : reflection->SetString(message, field, std::move(text));
      return {};
    }
    case FieldDescriptor::CPPTYPE_MESSAGE:
      return Mismatch(Expected(field), value);
  }
  return "unknown field type";
}

std::string StoreMapKey(Message* entry, const FieldDescriptor* key, const std::string& written) {
  const Reflection* reflection = entry->GetReflection();
  const auto integer = [&](auto number, auto set) -> std::string {
    const Conversion read = StringToInt(written, &number);
    if (read == Conversion::kOk) {
      (reflection->*set)(entry, key, number);
      return {};
    }
    if (read == Conversion::kInvalid) return "expected an integer as the key";
    return "expected a key that fits " + std::string(key->type_name());
  };
  switch (key->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      return integer(int32_t{0}, &Reflection::SetInt32);
    case FieldDescriptor::CPPTYPE_INT64:
      return integer(int64_t{0}, &Reflection::SetInt64);
    case FieldDescriptor::CPPTYPE_UINT32:
      return integer(uint32_t{0}, &Reflection::SetUInt32);
    case FieldDescriptor::CPPTYPE_UINT64:
      return integer(uint64_t{0}, &Reflection::SetUInt64);
    case FieldDescriptor::CPPTYPE_BOOL: {
      bool flag = false;
      if (!StringToBool(written, &flag)) return "expected true or false as the key";
      reflection->SetBool(entry, key, flag);
      return {};
    }
    default:
      reflection->SetString(entry, key, written);
      return {};
  }
}

std::string MapKeyText(const Message& entry, const FieldDescriptor* key) {
  const Reflection* reflection = entry.GetReflection();
  switch (key->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      return std::to_string(reflection->GetInt32(entry, key));
    case FieldDescriptor::CPPTYPE_INT64:
      return std::to_string(reflection->GetInt64(entry, key));
    case FieldDescriptor::CPPTYPE_UINT32:
      return std::to_string(reflection->GetUInt32(entry, key));
    case FieldDescriptor::CPPTYPE_UINT64:
      return std::to_string(reflection->GetUInt64(entry, key));
    case FieldDescriptor::CPPTYPE_BOOL:
      return reflection->GetBool(entry, key) ? "true" : "false";
    default:
      return reflection->GetString(entry, key);
  }
}

}  // namespace ferry::codec::json
