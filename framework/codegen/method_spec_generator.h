#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/printer.h>

namespace ferry::codegen {

// `struct <Service>Methods`: one constexpr ferry::MethodSpec per method, carrying the
// (ferry.idempotent) and (ferry.inline_method) options, shared by proxy and service base.
void PrintMethodSpecs(const google::protobuf::ServiceDescriptor& service,
                      google::protobuf::io::Printer& printer);

}  // namespace ferry::codegen
