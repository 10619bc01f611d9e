#include "json_printer.h"

#include <charconv>

#include "json_text.h"

namespace ferry::codec::json {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// protobuf's printer refuses messages nested deeper than this below the root.
constexpr int kMaxDepth = 64;

template <typename T>
void AppendInteger(T value, std::string* out, bool quoted) {
  char buffer[24];
  const auto end = std::to_chars(buffer, buffer + sizeof(buffer), value).ptr;
  if (quoted) out->push_back('"');
  out->append(buffer, end);
  if (quoted) out->push_back('"');
}

class Printer {
 public:
  explicit Printer(std::string* out) : out_(*out) {}

  bool PrintMessage(const Message& message, const MessagePlan& plan, int depth) {
    const Reflection* reflection = message.GetReflection();
    out_.push_back('{');
    bool first = true;
    for (const FieldPlan& field : plan.fields) {
      const FieldDescriptor* descriptor = field.field;
      int size = 0;
      if (descriptor->is_repeated()) {
        size = reflection->FieldSize(message, descriptor);
        if (size == 0) continue;
      } else if (!reflection->HasField(message, descriptor)) {
        // Where presence is implicit, HasField is what serializing skips: zeros (but -0.0),
        // empty strings and bytes, an enum's 0.
        continue;
      }
      if (!first) out_.push_back(',');
      first = false;
      out_.append(field.key);
      bool printed;
      if (descriptor->is_map()) {
        printed = PrintMap(message, reflection, field, size, depth);
      } else if (descriptor->is_repeated()) {
        out_.push_back('[');
        printed = true;
        for (int i = 0; printed && i < size; ++i) {
          if (i != 0) out_.push_back(',');
          printed = PrintValue(message, reflection, descriptor, field.message, i, depth);
        }
        out_.push_back(']');
      } else {
        printed = PrintValue(message, reflection, descriptor, field.message, -1, depth);
      }
      if (!printed) return false;
    }
    out_.push_back('}');
    return true;
  }

 private:
  // Entries in the order protobuf serializes them, its map's iteration order.
  bool PrintMap(const Message& message, const Reflection* reflection, const FieldPlan& field,
                int size, int depth) {
    out_.push_back('{');
    for (int i = 0; i < size; ++i) {
      if (i != 0) out_.push_back(',');
      const Message& entry = reflection->GetRepeatedMessage(message, field.field, i);
      const Reflection* entry_reflection = entry.GetReflection();
      const FieldDescriptor* key = field.map_key;
      switch (key->cpp_type()) {
        case FieldDescriptor::CPPTYPE_INT32:
          AppendInteger(entry_reflection->GetInt32(entry, key), &out_, true);
          break;
        case FieldDescriptor::CPPTYPE_INT64:
          AppendInteger(entry_reflection->GetInt64(entry, key), &out_, true);
          break;
        case FieldDescriptor::CPPTYPE_UINT32:
          AppendInteger(entry_reflection->GetUInt32(entry, key), &out_, true);
          break;
        case FieldDescriptor::CPPTYPE_UINT64:
          AppendInteger(entry_reflection->GetUInt64(entry, key), &out_, true);
          break;
        case FieldDescriptor::CPPTYPE_BOOL:
          out_.append(entry_reflection->GetBool(entry, key) ? "\"true\"" : "\"false\"");
          break;
        default: {
          std::string scratch;
          out_.push_back('"');
          AppendEscaped(entry_reflection->GetStringReference(entry, key, &scratch), &out_);
          out_.push_back('"');
          break;
        }
      }
      out_.push_back(':');
      if (!PrintValue(entry, entry_reflection, field.map_value, field.message, -1, depth)) {
        return false;
      }
    }
    out_.push_back('}');
    return true;
  }

  // The field's value, or its element `index` (-1 for a singular field).
  bool PrintValue(const Message& message, const Reflection* reflection,
                  const FieldDescriptor* field, const MessagePlan* plan, int index, int depth) {
    const bool one = index < 0;
    switch (field->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
        AppendInteger(one ? reflection->GetInt32(message, field)
                          : reflection->GetRepeatedInt32(message, field, index),
                      &out_, false);
        return true;
      case FieldDescriptor::CPPTYPE_INT64:
        AppendInteger(one ? reflection->GetInt64(message, field)
                          : reflection->GetRepeatedInt64(message, field, index),
                      &out_, true);
        return true;
      case FieldDescriptor::CPPTYPE_UINT32:
        AppendInteger(one ? reflection->GetUInt32(message, field)
                          : reflection->GetRepeatedUInt32(message, field, index),
                      &out_, false);
        return true;
      case FieldDescriptor::CPPTYPE_UINT64:
        AppendInteger(one ? reflection->GetUInt64(message, field)
                          : reflection->GetRepeatedUInt64(message, field, index),
                      &out_, true);
        return true;
      case FieldDescriptor::CPPTYPE_DOUBLE:
        AppendDouble(one ? reflection->GetDouble(message, field)
                         : reflection->GetRepeatedDouble(message, field, index),
                     &out_);
        return true;
      case FieldDescriptor::CPPTYPE_FLOAT:
        AppendFloat(one ? reflection->GetFloat(message, field)
                        : reflection->GetRepeatedFloat(message, field, index),
                    &out_);
        return true;
      case FieldDescriptor::CPPTYPE_BOOL:
        out_.append((one ? reflection->GetBool(message, field)
                         : reflection->GetRepeatedBool(message, field, index))
                        ? "true"
                        : "false");
        return true;
      case FieldDescriptor::CPPTYPE_ENUM: {
        const int number = one ? reflection->GetEnumValue(message, field)
                               : reflection->GetRepeatedEnumValue(message, field, index);
        // A number the enum does not name (proto3 keeps them) is printed as the number.
        if (const auto* named = field->enum_type()->FindValueByNumber(number)) {
          out_.push_back('"');
          out_.append(named->name());
          out_.push_back('"');
        } else {
          AppendInteger(number, &out_, false);
        }
        return true;
      }
      case FieldDescriptor::CPPTYPE_STRING: {
        std::string scratch;
        const std::string& text =
            one ? reflection->GetStringReference(message, field, &scratch)
                : reflection->GetRepeatedStringReference(message, field, index, &scratch);
        out_.push_back('"');
        if (field->type() == FieldDescriptor::TYPE_BYTES) {
          AppendBase64(text, &out_);
        } else {
          AppendEscaped(text, &out_);
        }
        out_.push_back('"');
        return true;
      }
      case FieldDescriptor::CPPTYPE_MESSAGE:
        if (depth == kMaxDepth) return false;
        return PrintMessage(one ? reflection->GetMessage(message, field)
                                : reflection->GetRepeatedMessage(message, field, index),
                            *plan, depth + 1);
    }
    return false;
  }

  std::string& out_;
};

}  // namespace

bool PrintFast(const Message& message, const MessagePlan& plan, std::string* out) {
  out->reserve(out->size() + 256);
  return Printer(out).PrintMessage(message, plan, 0);
}

}  // namespace ferry::codec::json
