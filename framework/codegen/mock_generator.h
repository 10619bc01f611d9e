#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/printer.h>

namespace ferry::codegen {

// `class Mock<Service>Client`: gMock of every call form, so callers are unit-tested without a
// network.
void PrintMockClient(const google::protobuf::ServiceDescriptor& service,
                     google::protobuf::io::Printer& printer);

}  // namespace ferry::codegen
