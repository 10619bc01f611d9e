#include "command_output.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <memory>

namespace ferry::testsupport {

std::string CommandOutput(const std::string& command) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen((command + " 2>&1").c_str(), "r"), ::pclose);
  EXPECT_NE(pipe, nullptr) << command;
  std::string output;
  std::array<char, 4096> chunk;
  while (pipe != nullptr && std::fgets(chunk.data(), chunk.size(), pipe.get()) != nullptr) {
    output += chunk.data();
  }
  return output;
}

}  // namespace ferry::testsupport
