#include "random_message.h"

#include <google/protobuf/descriptor.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <vector>

namespace ferry::codec_test {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xc0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xe0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else {
    out->push_back(static_cast<char>(0xf0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  }
}

// Code points protobuf escapes although JSON does not require it, and their neighbours.
constexpr uint32_t kSpecial[] = {
    0x00,    0x08,    0x0b,    0x1f,     '"',     '\\',    '/',     '<',     '>',
    '&',     0x7f,    0x80,    0x9f,     0xa0,    0xad,    0x600,   0x603,   0x604,
    0x6dd,   0x70f,   0x17b4,  0x17b5,   0x200a,  0x200b,  0x200f,  0x2028,  0x202e,
    0x202f,  0x2060,  0x2064,  0x206a,   0x206f,  0xfeff,  0xfff9,  0xfffb,  0xfffc,
    0xfffd,  0xffff,  0x10000, 0x1d172,  0x1d173, 0x1d17a, 0x1d17b, 0x1f600, 0xe0001,
    0xe0020, 0xe007f, 0xe0080, 0x10ffff, 0xe9,    0x4e2d};

}  // namespace

std::string RandomMessage::Text() {
  std::string text;
  const int length = Chance(15) ? 0 : Below(12);
  for (int i = 0; i < length; ++i) {
    uint32_t cp;
    switch (Below(5)) {
      case 0:
        cp = kSpecial[Below(std::size(kSpecial))];
        break;
      case 1:
        cp = static_cast<uint32_t>(0x20 + Below(0x5f));
        break;
      case 2:
        cp = static_cast<uint32_t>(Below(0x800));
        break;
      case 3:
        cp = static_cast<uint32_t>(Below(0x10000));
        break;
      default:
        cp = static_cast<uint32_t>(Below(0x110000));
        break;
    }
    if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;  // not a character
    AppendUtf8(cp, &text);
  }
  return text;
}

std::string RandomMessage::Bytes() {
  std::string bytes;
  if (Chance(20)) {
    bytes.resize(256);
    std::iota(bytes.begin(), bytes.end(), '\0');
    std::shuffle(bytes.begin(), bytes.end(), engine_);
    return bytes;
  }
  const int length = Chance(15) ? 0 : Below(10);
  for (int i = 0; i < length; ++i) bytes.push_back(static_cast<char>(Below(256)));
  return bytes;
}

template <typename T>
T RandomMessage::Integer() {
  using Limits = std::numeric_limits<T>;
  switch (Below(8)) {
    case 0:
      return Limits::min();
    case 1:
      return Limits::max();
    case 2:
      return 0;
    case 3:
      return static_cast<T>(Below(3) - 1);
    case 4:
      // Past what a double holds exactly, for 64-bit types.
      return static_cast<T>((uint64_t{1} << (sizeof(T) == 8 ? 53 : 24)) + 1);
    default:
      return static_cast<T>(engine_() >> Below(64));
  }
}

double RandomMessage::Double() {
  using Limits = std::numeric_limits<double>;
  constexpr double kEdges[] = {0.0,
                               -0.0,
                               Limits::quiet_NaN(),
                               Limits::infinity(),
                               -Limits::infinity(),
                               Limits::max(),
                               -Limits::max(),
                               Limits::min(),
                               Limits::denorm_min(),
                               0.1,
                               1.0 / 3,
                               1e21,
                               1e-7,
                               123456789.0,
                               -1.5,
                               9007199254740993.0};
  if (Chance(40)) return kEdges[Below(std::size(kEdges))];
  if (Chance(50)) return std::uniform_real_distribution<double>(-1e6, 1e6)(engine_);
  uint64_t bits = engine_();
  double value;
  std::memcpy(&value, &bits, sizeof(value));
  // NaNs print as "NaN" and read back as the quiet one.
  return std::isnan(value) ? Limits::quiet_NaN() : value;
}

float RandomMessage::Float() {
  using Limits = std::numeric_limits<float>;
  constexpr float kEdges[] = {0.0f,
                              -0.0f,
                              Limits::quiet_NaN(),
                              Limits::infinity(),
                              -Limits::infinity(),
                              Limits::max(),
                              -Limits::max(),
                              Limits::min(),
                              Limits::denorm_min(),
                              0.1f,
                              1.0f / 3,
                              16777217.0f,
                              3.14159f,
                              1e-7f};
  if (Chance(40)) return kEdges[Below(std::size(kEdges))];
  if (Chance(50)) return std::uniform_real_distribution<float>(-1e6f, 1e6f)(engine_);
  const auto bits = static_cast<uint32_t>(engine_());
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return std::isnan(value) ? Limits::quiet_NaN() : value;
}

int RandomMessage::EnumNumber(const FieldDescriptor* field) {
  const auto* type = field->enum_type();
  // proto3 enums are open: numbers without a name are kept, and printed as numbers.
  constexpr int kUnnamed[] = {5, -100, std::numeric_limits<int32_t>::max(),
                              std::numeric_limits<int32_t>::min()};
  if (Chance(20)) return kUnnamed[Below(std::size(kUnnamed))];
  return type->value(Below(type->value_count()))->number();
}

void RandomMessage::SetValue(Message* message, const FieldDescriptor* field, bool add, int depth) {
  const Reflection* reflection = message->GetReflection();
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32: {
      const auto value = Integer<int32_t>();
      add ? reflection->AddInt32(message, field, value)
          : reflection->SetInt32(message, field, value);
      break;
    }
    case FieldDescriptor::CPPTYPE_INT64: {
      const auto value = Integer<int64_t>();
      add ? reflection->AddInt64(message, field, value)
          : reflection->SetInt64(message, field, value);
      break;
    }
    case FieldDescriptor::CPPTYPE_UINT32: {
      const auto value = Integer<uint32_t>();
      add ? reflection->AddUInt32(message, field, value)
          : reflection->SetUInt32(message, field, value);
      break;
    }
    case FieldDescriptor::CPPTYPE_UINT64: {
      const auto value = Integer<uint64_t>();
      add ? reflection->AddUInt64(message, field, value)
          : reflection->SetUInt64(message, field, value);
      break;
    }
    case FieldDescriptor::CPPTYPE_DOUBLE: {
      const double value = Double();
      add ? reflection->AddDouble(message, field, value)
          : reflection->SetDouble(message, field, value);
      break;
    }
    case FieldDescriptor::CPPTYPE_FLOAT: {
      const float value = Float();
      add ? reflection->AddFloat(message, field, value)
          : reflection->SetFloat(message, field, value);
      break;
    }
    case FieldDescriptor::CPPTYPE_BOOL: {
      const bool value = Chance(50);
      add ? reflection->AddBool(message, field, value) : reflection->SetBool(message, field, value);
      break;
    }
    case FieldDescriptor::CPPTYPE_ENUM: {
      const int value = EnumNumber(field);
      add ? reflection->AddEnumValue(message, field, value)
          : reflection->SetEnumValue(message, field, value);
      break;
    }
    case FieldDescriptor::CPPTYPE_STRING: {
      std::string value = field->type() == FieldDescriptor::TYPE_BYTES ? Bytes() : Text();
      add ? reflection->AddString(message, field, std::move(value))
          : reflection->SetString(message, field, std::move(value));
      break;
    }
    case FieldDescriptor::CPPTYPE_MESSAGE: {
      Message* child =
          add ? reflection->AddMessage(message, field) : reflection->MutableMessage(message, field);
      // A map entry always gets its key and value: an absent one reads as the default anyway.
      if (field->is_map()) {
        SetValue(child, child->GetDescriptor()->map_key(), false, depth);
        SetValue(child, child->GetDescriptor()->map_value(), false, depth);
      } else {
        FillFields(child, depth - 1);
      }
      break;
    }
  }
}

void RandomMessage::FillFields(Message* message, int depth) {
  const auto* descriptor = message->GetDescriptor();
  const Reflection* reflection = message->GetReflection();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const FieldDescriptor* field = descriptor->field(i);
    if (field->real_containing_oneof() != nullptr) continue;
    if ((field->message_type() != nullptr && depth <= 0) || !Chance(45)) continue;
    if (!field->is_repeated()) {
      SetValue(message, field, false, depth);
      continue;
    }
    const int count = 1 + Below(3);
    for (int k = 0; k < count; ++k) SetValue(message, field, true, depth);
  }
  for (int i = 0; i < descriptor->real_oneof_decl_count(); ++i) {
    const auto* oneof = descriptor->oneof_decl(i);
    const FieldDescriptor* field = oneof->field(Below(oneof->field_count()));
    if (Chance(30) || (field->message_type() != nullptr && depth <= 0)) continue;
    SetValue(message, field, false, depth);
    // Now and then the member's default, which is printed all the same.
    if (Chance(25) && field->message_type() == nullptr) {
      std::unique_ptr<Message> blank(message->New());
      reflection->ClearField(message, field);
      const Reflection* defaults = blank->GetReflection();
      switch (field->cpp_type()) {
        case FieldDescriptor::CPPTYPE_STRING:
          reflection->SetString(message, field, "");
          break;
        case FieldDescriptor::CPPTYPE_INT64:
          reflection->SetInt64(message, field, defaults->GetInt64(*blank, field));
          break;
        case FieldDescriptor::CPPTYPE_DOUBLE:
          reflection->SetDouble(message, field, defaults->GetDouble(*blank, field));
          break;
        case FieldDescriptor::CPPTYPE_ENUM:
          reflection->SetEnumValue(message, field, 0);
          break;
        default:
          ADD_FAILURE() << "no default for " << field->full_name();
          break;
      }
    }
  }
}

void RandomMessage::Fill(Message* message, int depth) {
  std::unique_ptr<Message> draft(message->New());
  FillFields(draft.get(), depth);
  // Entries added through reflection are a list that may repeat a key; parsed, they are a map.
  message->Clear();
  message->ParseFromString(draft->SerializeAsString());
}

}  // namespace ferry::codec_test
