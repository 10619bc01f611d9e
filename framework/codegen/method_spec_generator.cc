#include "method_spec_generator.h"

#include <google/protobuf/compiler/cpp/names.h>

#include "ferry/options.pb.h"
#include "names.h"

namespace ferry::codegen {

namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::MethodDescriptor;

const char* CppBool(bool value) { return value ? "true" : "false"; }

// The field the method's (ferry.idempotency_key) names; null when it has none, or, with `*error`
// set, when the option is misused.
const FieldDescriptor* IdempotencyKeyField(const MethodDescriptor& method, std::string* error) {
  if (!method.options().HasExtension(::ferry::idempotency_key)) return nullptr;
  const std::string& key = method.options().GetExtension(::ferry::idempotency_key);
  const std::string prefix = method.full_name() + ": (ferry.idempotency_key) \"" + key + "\": ";
  if (method.options().GetExtension(::ferry::idempotent)) {
    // Either the method is always safe to repeat or only with a key; both at once leaves the
    // reader guessing which was meant.
    *error = prefix + "the method is also (ferry.idempotent) = true; keep one of the two";
    return nullptr;
  }
  const FieldDescriptor* field = method.input_type()->FindFieldByName(key);
  if (field == nullptr) {
    *error = prefix + "no such field in " + method.input_type()->full_name();
    return nullptr;
  }
  if (field->is_repeated() || (field->type() != FieldDescriptor::TYPE_STRING &&
                               field->type() != FieldDescriptor::TYPE_BYTES)) {
    *error = prefix + "field " + field->full_name() + " is " +
             (field->is_repeated() ? "repeated " : "") + field->type_name() +
             "; the key must be a singular string or bytes field";
    return nullptr;
  }
  return field;
}

}  // namespace

bool CheckMethodOptions(const google::protobuf::FileDescriptor& file, std::string* error) {
  for (int s = 0; s < file.service_count(); ++s) {
    for (int m = 0; m < file.service(s)->method_count(); ++m) {
      error->clear();
      IdempotencyKeyField(*file.service(s)->method(m), error);
      if (!error->empty()) return false;
    }
  }
  return true;
}

void PrintMethodSpecs(const google::protobuf::ServiceDescriptor& service,
                      google::protobuf::io::Printer& printer) {
  printer.Print(ServiceVars(service), "struct $service$Methods {\n");
  printer.Indent();
  for (int i = 0; i < service.method_count(); ++i) {
    const MethodDescriptor& method = *service.method(i);
    Vars vars = MethodVars(method);
    vars["idempotent"] = CppBool(method.options().GetExtension(::ferry::idempotent));
    vars["inline_method"] = CppBool(method.options().GetExtension(::ferry::inline_method));
    printer.Print(vars,
                  "static constexpr ::ferry::MethodSpec $method${\n"
                  "    .service = \"$service_full_name$\",\n"
                  "    .method = \"$method$\",\n"
                  "    .idempotent = $idempotent$,\n"
                  "    .inline_method = $inline_method$,\n");
    std::string error;
    if (const FieldDescriptor* key = IdempotencyKeyField(method, &error)) {
      // The accessor protoc's C++ generator gives the field (a C++ keyword gets a '_').
      vars["key_accessor"] = google::protobuf::compiler::cpp::FieldName(key);
      printer.Print(vars,
                    "    .has_idempotency_key =\n"
                    "        [](const ::google::protobuf::Message& request) {\n"
                    "          return !static_cast<const $request$&>(request)\n"
                    "                      .$key_accessor$().empty();\n"
                    "        },\n");
    }
    printer.Print("};\n");
  }
  printer.Outdent();
  printer.Print("};\n\n");
}

}  // namespace ferry::codegen
