#include "method_spec_generator.h"

#include "ferry/options.pb.h"
#include "names.h"

namespace ferry::codegen {

namespace {

const char* CppBool(bool value) { return value ? "true" : "false"; }

}  // namespace

void PrintMethodSpecs(const google::protobuf::ServiceDescriptor& service,
                      google::protobuf::io::Printer& printer) {
  printer.Print(ServiceVars(service), "struct $service$Methods {\n");
  printer.Indent();
  for (int i = 0; i < service.method_count(); ++i) {
    const google::protobuf::MethodDescriptor& method = *service.method(i);
    Vars vars = MethodVars(method);
    vars["idempotent"] = CppBool(method.options().GetExtension(::ferry::idempotent));
    vars["inline_method"] = CppBool(method.options().GetExtension(::ferry::inline_method));
    printer.Print(vars,
                  "static constexpr ::ferry::MethodSpec $method${\n"
                  "    .service = \"$service_full_name$\",\n"
                  "    .method = \"$method$\",\n"
                  "    .idempotent = $idempotent$,\n"
                  "    .inline_method = $inline_method$,\n"
                  "};\n");
  }
  printer.Outdent();
  printer.Print("};\n\n");
}

}  // namespace ferry::codegen
