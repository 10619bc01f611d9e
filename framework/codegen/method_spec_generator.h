#pragma once

#include <string>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/printer.h>

namespace ferry::codegen {

// `struct <Service>Methods`: one constexpr ferry::MethodSpec per method, carrying the
// (ferry.idempotent), (ferry.inline_method) and (ferry.idempotency_key) options, shared by proxy
// and service base. Expects CheckMethodOptions to have passed.
void PrintMethodSpecs(const google::protobuf::ServiceDescriptor& service,
                      google::protobuf::io::Printer& printer);

// Whether every method's (ferry.idempotency_key) names a singular string or bytes field of its
// request and is not combined with (ferry.idempotent) = true; if not, says which method and
// field in `error`.
bool CheckMethodOptions(const google::protobuf::FileDescriptor& file, std::string* error);

}  // namespace ferry::codegen
