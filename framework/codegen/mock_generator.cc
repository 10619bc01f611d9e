#include "mock_generator.h"

#include "names.h"

namespace ferry::codegen {

void PrintMockClient(const google::protobuf::ServiceDescriptor& service,
                     google::protobuf::io::Printer& printer) {
  printer.Print(ServiceVars(service),
                "// Stands in for $service$Client in callers' unit tests; no channel, no network.\n"
                "class Mock$service$Client : public $service$Client {\n"
                " public:\n");
  printer.Indent();
  for (int i = 0; i < service.method_count(); ++i) {
    printer.Print(MethodVars(*service.method(i)),
                  "MOCK_METHOD(::ferry::Result<$response$>, $method$,\n"
                  "    (const $request$& request, const ::ferry::CallOptions& options),\n"
                  "    (override));\n"
                  "MOCK_METHOD(::ferry::CallFuture<$response$>, $method$Async,\n"
                  "    (const $request$& request, const ::ferry::CallOptions& options),\n"
                  "    (override));\n"
                  "MOCK_METHOD(::ferry::CallHandle, $method$WithCallback,\n"
                  "    (const $request$& request,\n"
                  "     std::function<void(::ferry::Result<$response$>)> done,\n"
                  "     const ::ferry::CallOptions& options),\n"
                  "    (override));\n");
  }
  printer.Outdent();
  printer.Print("};\n\n");
}

}  // namespace ferry::codegen
