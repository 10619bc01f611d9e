#include <google/protobuf/compiler/plugin.h>

#include "ferry_generator.h"

int main(int argc, char* argv[]) {
  ferry::codegen::FerryGenerator generator;
  return google::protobuf::compiler::PluginMain(argc, argv, &generator);
}
