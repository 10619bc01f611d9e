#include "names.h"

#include <string_view>

namespace ferry::codegen {

namespace {

std::string ReplaceAll(std::string_view text, std::string_view from, std::string_view to) {
  std::string out;
  size_t start = 0;
  for (size_t pos = text.find(from); pos != std::string_view::npos; pos = text.find(from, start)) {
    out.append(text.substr(start, pos - start)).append(to);
    start = pos + from.size();
  }
  out.append(text.substr(start));
  return out;
}

}  // namespace

std::string FileStem(const google::protobuf::FileDescriptor& file) {
  std::string_view name = file.name();
  constexpr std::string_view kSuffix = ".proto";
  if (name.ends_with(kSuffix)) name.remove_suffix(kSuffix.size());
  return std::string(name);
}

std::string CppNamespace(const google::protobuf::FileDescriptor& file) {
  return ReplaceAll(file.package(), ".", "::");
}

std::string CppTypeName(const google::protobuf::Descriptor& message) {
  const std::string& package = message.file()->package();
  std::string_view relative = message.full_name();
  // Nested messages live in the package namespace as Outer_Inner, not in a nested scope.
  if (!package.empty()) relative.remove_prefix(package.size() + 1);
  std::string name = "::" + CppNamespace(*message.file());
  if (!package.empty()) name += "::";
  return name + ReplaceAll(relative, ".", "_");
}

Vars ServiceVars(const google::protobuf::ServiceDescriptor& service) {
  return {{"service", service.name()}, {"service_full_name", service.full_name()}};
}

Vars MethodVars(const google::protobuf::MethodDescriptor& method) {
  Vars vars = ServiceVars(*method.service());
  vars["method"] = method.name();
  vars["request"] = CppTypeName(*method.input_type());
  vars["response"] = CppTypeName(*method.output_type());
  return vars;
}

}  // namespace ferry::codegen
