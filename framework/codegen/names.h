#pragma once

#include <map>
#include <string>

#include <google/protobuf/descriptor.h>

// How protoc-gen-ferry names what it emits, shared by the client, server and mock generators.
namespace ferry::codegen {

// Substitutions for google::protobuf::io::Printer.
using Vars = std::map<std::string, std::string>;

// "dir/echo" for "dir/echo.proto": every generated file is named after it.
std::string FileStem(const google::protobuf::FileDescriptor& file);

// "ferry::demo" for package "ferry.demo"; empty when the file has no package.
std::string CppNamespace(const google::protobuf::FileDescriptor& file);

// Fully qualified name protoc's C++ generator gives a message: "::ferry::demo::Outer_Inner".
std::string CppTypeName(const google::protobuf::Descriptor& message);

// $service$ (the proto's short name) and $service_full_name$.
Vars ServiceVars(const google::protobuf::ServiceDescriptor& service);

// ServiceVars plus $method$, $request$ and $response$ (qualified C++ types).
Vars MethodVars(const google::protobuf::MethodDescriptor& method);

}  // namespace ferry::codegen
