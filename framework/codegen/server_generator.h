#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/printer.h>

namespace ferry::codegen {

// Header part: `class <Service>Base : public ferry::Service`, one virtual per method for
// service authors to override.
void PrintServiceBaseDeclaration(const google::protobuf::ServiceDescriptor& service,
                                 google::protobuf::io::Printer& printer);

// Source part: the UNIMPLEMENTED defaults and the methods() table the server dispatches through.
void PrintServiceBaseDefinitions(const google::protobuf::ServiceDescriptor& service,
                                 google::protobuf::io::Printer& printer);

}  // namespace ferry::codegen
