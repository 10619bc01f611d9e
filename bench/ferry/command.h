#pragma once

#include <string_view>

namespace ferry::bench {

// One workload of ferry-bench (`ferry-bench <name> [flags]`). Each lives in a file of its own and
// is listed once in main.cc.
struct Command {
  std::string_view name;
  std::string_view summary;  // one line for `ferry-bench --help`
  // `argv[0]` is the command's name; the flags follow. Returns the process exit code.
  int (*run)(int argc, const char* const* argv);
};

}  // namespace ferry::bench
