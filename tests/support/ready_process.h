#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace ferry::testsupport {

// A Ferry application run as a child process: started with its arguments, ready once it prints
// "<name> listening on <host:port>" on stdout (ferry::App's ready line). Its stderr goes to the
// test's. Killed on destruction, and by the kernel if the test process dies first, so that a
// failed test leaves nothing behind.
class ReadyProcess {
 public:
  ReadyProcess() = default;
  ~ReadyProcess() { Kill(); }
  ReadyProcess(const ReadyProcess&) = delete;
  ReadyProcess& operator=(const ReadyProcess&) = delete;

  // `args[0]` is the program's absolute path; waits up to `timeout` for the ready line of
  // `name`.
  ::testing::AssertionResult Start(const std::vector<std::string>& args, const std::string& name,
                                   std::chrono::milliseconds timeout = std::chrono::seconds(20));
  // SIGTERM, and waits up to `timeout` for the exit: the process's exit code, or -1 when it
  // had to be killed or died of a signal.
  int Terminate(std::chrono::milliseconds timeout);
  void Kill();

  bool running() const { return pid_ > 0; }
  // "host:port" from the ready line.
  const std::string& address() const { return address_; }

 private:
  pid_t pid_ = -1;
  std::string address_;
};

}  // namespace ferry::testsupport
