#pragma once

#include <string>

namespace ferry::testsupport {

// Runs `command` through the shell and returns what it wrote to stdout and stderr, for tests
// that check what a real client program (curl, openssl) says. A command that cannot be started
// fails the current test.
std::string CommandOutput(const std::string& command);

}  // namespace ferry::testsupport
