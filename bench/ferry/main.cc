// ferry-bench <command> [flags]: Ferry's load generator. `ferry-bench --help` lists the commands,
// `ferry-bench <command> --help` the flags of one.
#include <iostream>
#include <string_view>

#include "command.h"
#include "echo_command.h"
#include "like_command.h"
#include "seckill_command.h"
#include "shortlink_command.h"

namespace ferry::bench {
namespace {

constexpr const Command* kCommands[] = {&kEchoCommand, &kSeckillCommand, &kShortLinkCommand,
                                        &kLikeCommand};

void PrintUsage(std::ostream& out) {
  out << "usage: ferry-bench <command> [flags]   (ferry-bench <command> --help for its flags)\n"
      << "commands:\n";
  for (const Command* command : kCommands) {
    std::string left = "  " + std::string(command->name);
    left.resize(std::max<size_t>(left.size() + 2, 12), ' ');
    out << left << command->summary << "\n";
  }
}

int Main(int argc, char** argv) {
  if (argc < 2) {
    PrintUsage(std::cerr);
    return 2;
  }
  const std::string_view name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    PrintUsage(std::cout);
    return 0;
  }
  for (const Command* command : kCommands) {
    if (command->name == name) return command->run(argc - 1, argv + 1);
  }
  std::cerr << "ferry-bench: unknown command '" << name << "'\n";
  PrintUsage(std::cerr);
  return 2;
}

}  // namespace
}  // namespace ferry::bench

int main(int argc, char** argv) { return ferry::bench::Main(argc, argv); }
