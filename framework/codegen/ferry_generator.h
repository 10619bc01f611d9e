#pragma once

#include <string>

#include <google/protobuf/compiler/code_generator.h>

namespace ferry::codegen {

// For each foo.proto writes foo.ferry.h (method specs, client interface, proxy, service base),
// foo.ferry.cc and foo.ferry_mock.h, next to protoc's foo.pb.h.
class FerryGenerator final : public google::protobuf::compiler::CodeGenerator {
 public:
  bool Generate(const google::protobuf::FileDescriptor* file, const std::string& parameter,
                google::protobuf::compiler::GeneratorContext* context,
                std::string* error) const override;

  // Ferry ignores fields, so proto3 `optional` needs nothing from it.
  uint64_t GetSupportedFeatures() const override { return FEATURE_PROTO3_OPTIONAL; }
};

}  // namespace ferry::codegen
