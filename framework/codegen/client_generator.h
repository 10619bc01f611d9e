#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/printer.h>

namespace ferry::codegen {

// Header part: `class <Service>Client`, the abstract interface callers are written against,
// and `class <Service>Proxy`, its implementation over a ferry::Channel.
void PrintClientDeclarations(const google::protobuf::ServiceDescriptor& service,
                             google::protobuf::io::Printer& printer);

// Source part: the proxy's methods, each one call into ferry/codegen/unary_call.h.
void PrintProxyDefinitions(const google::protobuf::ServiceDescriptor& service,
                           google::protobuf::io::Printer& printer);

}  // namespace ferry::codegen
