#include "server_generator.h"

#include "names.h"

namespace ferry::codegen {

void PrintServiceBaseDeclaration(const google::protobuf::ServiceDescriptor& service,
                                 google::protobuf::io::Printer& printer) {
  printer.Print(
      ServiceVars(service),
      "// Server side of $service_full_name$: derive, override the methods you serve\n"
      "// and hand the object to ferry::Server::AddService. The rest answer UNIMPLEMENTED.\n"
      "// Override either form of a method: `Method` answers by returning, on a business\n"
      "// thread (or the IO thread for inline methods); `MethodAsync` answers through `done`,\n"
      "// from any thread, and may return at once (e.g. after starting a downstream call).\n"
      "class $service$Base : public ::ferry::Service {\n"
      " public:\n"
      "  std::string_view full_name() const override {\n"
      "    return \"$service_full_name$\";\n"
      "  }\n"
      "  std::span<const ::ferry::Service::Method> methods() const override;\n\n");
  printer.Indent();
  for (int i = 0; i < service.method_count(); ++i) {
    printer.Print(
        MethodVars(*service.method(i)),
        "virtual ::ferry::Status $method$(::ferry::ServerContext& context,\n"
        "    const $request$& request, $response$* response);\n"
        "virtual void $method$Async(::ferry::ServerContext& context,\n"
        "    const $request$& request, $response$* response, ::ferry::ServerDone done);\n");
  }
  printer.Outdent();
  printer.Print("};\n\n");
}

void PrintServiceBaseDefinitions(const google::protobuf::ServiceDescriptor& service,
                                 google::protobuf::io::Printer& printer) {
  for (int i = 0; i < service.method_count(); ++i) {
    printer.Print(
        MethodVars(*service.method(i)),
        "::ferry::Status $service$Base::$method$(::ferry::ServerContext&,\n"
        "    const $request$&, $response$*) {\n"
        "  return ::ferry::Status(::ferry::StatusCode::UNIMPLEMENTED,\n"
        "      \"$service_full_name$.$method$ is not implemented\");\n"
        "}\n\n"
        "void $service$Base::$method$Async(::ferry::ServerContext& context,\n"
        "    const $request$& request, $response$* response, ::ferry::ServerDone done) {\n"
        "  done($method$(context, request, response));\n"
        "}\n\n");
  }

  const Vars vars = ServiceVars(service);
  if (service.method_count() == 0) {
    printer.Print(vars,
                  "std::span<const ::ferry::Service::Method> $service$Base::methods() const {\n"
                  "  return {};\n"
                  "}\n\n");
    return;
  }
  printer.Print(vars,
                "std::span<const ::ferry::Service::Method> $service$Base::methods() const {\n"
                "  static const ::ferry::Service::Method kMethods[] = {\n");
  printer.Indent();
  printer.Indent();
  for (int i = 0; i < service.method_count(); ++i) {
    printer.Print(MethodVars(*service.method(i)),
                  "{&$service$Methods::$method$, &$request$::default_instance(),\n"
                  " &$response$::default_instance(),\n"
                  " [](::ferry::Service& service, ::ferry::ServerContext& context,\n"
                  "    const ::google::protobuf::Message& request,\n"
                  "    ::google::protobuf::Message* response, ::ferry::ServerDone done) {\n"
                  "   static_cast<$service$Base&>(service).$method$Async(\n"
                  "       context, static_cast<const $request$&>(request),\n"
                  "       static_cast<$response$*>(response), std::move(done));\n"
                  " }},\n");
  }
  printer.Outdent();
  printer.Outdent();
  printer.Print(
      "  };\n"
      "  return kMethods;\n"
      "}\n\n");
}

}  // namespace ferry::codegen
