#pragma once

#include <google/protobuf/message.h>

#include <string>
#include <string_view>

// JSON scalars into protobuf fields, converted as protobuf 3.21's JsonStringToMessage converts
// them. Failures say what is wrong with the value; the caller says where it is.
namespace ferry::codec::json {

// A scalar as the reader delivers it: a number or a string by its text (the number's text is
// followed by a NUL).
struct JsonScalar {
  enum class Kind { kNull, kBool, kNumber, kString };
  Kind kind;
  std::string_view text = {};
  bool boolean = false;
};

// For messages: null, true, 1.5, 'text' (escaped and cut short, as numbers); what a field takes:
// "an integer", "base64".
std::string Describe(const JsonScalar& value);
std::string Expected(const google::protobuf::FieldDescriptor* field);

// Sets `field` (adds to it when `add`) to the non-null `value`. Empty on success, else what is
// wrong: "expected an integer, got 1.5". `skip_unknown_names`: an enum name the enum does not
// have is no error, and sets nothing.
std::string StoreScalar(google::protobuf::Message* message,
                        const google::protobuf::FieldDescriptor* field, bool add,
                        const JsonScalar& value, bool skip_unknown_names);

// Sets a map entry's key from an object's key as written, as protobuf reads keys: integers as
// in a string, bools as StringToBool has them. Empty on success, else what is wrong.
std::string StoreMapKey(google::protobuf::Message* entry,
                        const google::protobuf::FieldDescriptor* key, const std::string& written);

// The key's canonical text, to find two entries with one key (as "1" and "01" are).
std::string MapKeyText(const google::protobuf::Message& entry,
                       const google::protobuf::FieldDescriptor* key);

}  // namespace ferry::codec::json
