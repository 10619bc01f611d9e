#include "client_generator.h"

#include <string>
#include <string_view>

#include "names.h"

namespace ferry::codegen {

namespace {

enum class Declarer { kInterface, kProxy };

// Carries the method's documentation from the .proto to the interface callers read.
void PrintProtoComment(const google::protobuf::MethodDescriptor& method,
                       google::protobuf::io::Printer& printer) {
  google::protobuf::SourceLocation location;
  if (!method.GetSourceLocation(&location)) return;
  std::string_view comment = location.leading_comments;
  while (!comment.empty()) {
    const size_t end = comment.find('\n');
    printer.Print("//$line$\n", "line", std::string(comment.substr(0, end)));
    comment.remove_prefix(end == std::string_view::npos ? comment.size() : end + 1);
  }
}

void PrintClientMethods(const google::protobuf::ServiceDescriptor& service, Declarer declarer,
                        google::protobuf::io::Printer& printer) {
  for (int i = 0; i < service.method_count(); ++i) {
    if (i > 0) printer.Print("\n");
    if (declarer == Declarer::kInterface) PrintProtoComment(*service.method(i), printer);
    Vars vars = MethodVars(*service.method(i));
    vars["virtual"] = declarer == Declarer::kInterface ? "virtual " : "";
    vars["suffix"] = declarer == Declarer::kInterface ? " = 0" : " override";
    printer.Print(
        vars,
        "$virtual$::ferry::Result<$response$> $method$(\n"
        "    const $request$& request, const ::ferry::CallOptions& options = {})$suffix$;\n"
        "$virtual$::ferry::CallFuture<$response$> $method$Async(\n"
        "    const $request$& request, const ::ferry::CallOptions& options = {})$suffix$;\n"
        "$virtual$::ferry::CallHandle $method$WithCallback(const $request$& request,\n"
        "    std::function<void(::ferry::Result<$response$>)> done,\n"
        "    const ::ferry::CallOptions& options = {})$suffix$;\n");
  }
}

}  // namespace

void PrintClientDeclarations(const google::protobuf::ServiceDescriptor& service,
                             google::protobuf::io::Printer& printer) {
  const Vars vars = ServiceVars(service);
  printer.Print(vars,
                "// Client of $service_full_name$: blocking, future and callback form of\n"
                "// each method. The async forms return a handle that can cancel the call.\n"
                "// Callbacks run on an IO thread and must not block.\n"
                "class $service$Client {\n"
                " public:\n"
                "  virtual ~$service$Client() = default;\n\n");
  printer.Indent();
  PrintClientMethods(service, Declarer::kInterface, printer);
  printer.Outdent();
  printer.Print("};\n\n");

  printer.Print(vars,
                "// Calls $service_full_name$ through a channel; many proxies may share one.\n"
                "class $service$Proxy final : public $service$Client {\n"
                " public:\n"
                "  explicit $service$Proxy(std::shared_ptr<::ferry::Channel> channel)\n"
                "      : channel_(std::move(channel)) {}\n\n");
  printer.Indent();
  PrintClientMethods(service, Declarer::kProxy, printer);
  printer.Outdent();
  printer.Print(
      "\n"
      " private:\n"
      "  std::shared_ptr<::ferry::Channel> channel_;\n"
      "};\n\n");
}

void PrintProxyDefinitions(const google::protobuf::ServiceDescriptor& service,
                           google::protobuf::io::Printer& printer) {
  for (int i = 0; i < service.method_count(); ++i) {
    printer.Print(
        MethodVars(*service.method(i)),
        "::ferry::Result<$response$> $service$Proxy::$method$(\n"
        "    const $request$& request, const ::ferry::CallOptions& options) {\n"
        "  return ::ferry::codegen::BlockingUnaryCall<$response$>(\n"
        "      *channel_, $service$Methods::$method$, request, options);\n"
        "}\n\n"
        "::ferry::CallFuture<$response$> $service$Proxy::$method$Async(\n"
        "    const $request$& request, const ::ferry::CallOptions& options) {\n"
        "  return ::ferry::codegen::FutureUnaryCall<$response$>(\n"
        "      *channel_, $service$Methods::$method$, request, options);\n"
        "}\n\n"
        "::ferry::CallHandle $service$Proxy::$method$WithCallback(\n"
        "    const $request$& request,\n"
        "    std::function<void(::ferry::Result<$response$>)> done,\n"
        "    const ::ferry::CallOptions& options) {\n"
        "  return ::ferry::codegen::CallbackUnaryCall<$response$>(\n"
        "      *channel_, $service$Methods::$method$, request, options, std::move(done));\n"
        "}\n\n");
  }
}

}  // namespace ferry::codegen
