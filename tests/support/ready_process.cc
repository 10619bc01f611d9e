#include "ready_process.h"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "process.h"

namespace ferry::testsupport {
namespace {

// Reads the child's stdout until `ready`, for at most `timeout`.
bool ReadReadyLine(int fd, const std::string& ready, std::chrono::milliseconds timeout,
                   std::string* address) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  std::string output;
  char buffer[256];
  while (std::chrono::steady_clock::now() < until) {
    pollfd readable{.fd = fd, .events = POLLIN, .revents = 0};
    if (::poll(&readable, 1, 100) <= 0) continue;
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n <= 0) return false;
    output.append(buffer, static_cast<size_t>(n));
    const size_t at = output.find(ready);
    const size_t end = at == std::string::npos ? at : output.find('\n', at);
    if (end != std::string::npos) {
      *address = output.substr(at + ready.size(), end - at - ready.size());
      return true;
    }
  }
  return false;
}

}  // namespace

::testing::AssertionResult ReadyProcess::Start(const std::vector<std::string>& args,
                                               const std::string& name,
                                               std::chrono::milliseconds timeout) {
  if (pid_ > 0) return ::testing::AssertionFailure() << name << " is running already";
  std::vector<char*> argv;
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  int out[2];
  if (::pipe(out) != 0) return ::testing::AssertionFailure() << "pipe failed";
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ < 0) return ::testing::AssertionFailure() << "fork failed";
  if (pid_ == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    ::dup2(out[1], STDOUT_FILENO);
    ::close(out[0]);
    ::close(out[1]);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(out[1]);
  const bool ready = ReadReadyLine(out[0], name + " listening on ", timeout, &address_);
  // The ready line is the only thing an App writes to stdout.
  ::close(out[0]);
  if (!ready) {
    Kill();
    return ::testing::AssertionFailure() << name << " did not print its ready line";
  }
  return ::testing::AssertionSuccess();
}

int ReadyProcess::Terminate(std::chrono::milliseconds timeout) {
  if (pid_ <= 0) return -1;
  ::kill(pid_, SIGTERM);
  int status = 0;
  const bool exited = internal::WaitExit(pid_, timeout, &status);
  if (!exited) {
    Kill();
    return -1;
  }
  pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void ReadyProcess::Kill() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

}  // namespace ferry::testsupport
