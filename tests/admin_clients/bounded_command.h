#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace ferry::admin_clients_test {

// How a program run by RunBounded ended.
struct CommandResult {
  bool started = false;
  bool timed_out = false;  // killed, with its process group, once the bound passed
  int exit_code = -1;      // when it exited by itself; -1 when killed by a signal
  std::string error;       // why it could not be started
};

// Runs `args` (args[0] an absolute path) with stdin from `stdin_path` (/dev/null when empty),
// stdout to `stdout_path` and stderr to `stderr_path`, for at most `timeout`. The program runs
// in a process group of its own, so that a program that starts helpers of its own (a browser)
// is killed with those that stay in its group when it hangs (helpers that leave the group, like
// Chromium's crash handler, exit once the program is gone); and it is killed if the test
// process dies first.
// `environment` ("NAME=value") is added to the test's own, replacing variables of those names.
CommandResult RunBounded(const std::vector<std::string>& args,
                         const std::filesystem::path& stdin_path,
                         const std::filesystem::path& stdout_path,
                         const std::filesystem::path& stderr_path,
                         std::chrono::milliseconds timeout,
                         const std::vector<std::string>& environment = {});

// A whole file's text ("" when it cannot be read).
std::string ReadFile(const std::filesystem::path& path);

}  // namespace ferry::admin_clients_test
