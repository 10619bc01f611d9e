#include "provider_process.h"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>

namespace ferry::cluster {
namespace {

constexpr std::string_view kReady = "echo-server listening on ";

std::string WriteConfig(const std::string& registry_url, const std::string& namespace_name) {
  static int files = 0;
  const std::string path = ::testing::TempDir() + "/cluster-provider-" +
                           std::to_string(::getpid()) + "-" + std::to_string(++files) + ".yaml";
  std::ofstream(path) << "log:\n  level: warn\n"
                      << "server:\n  listen: 127.0.0.1:0\n  grace_period_ms: 100\n"
                      << "  business_pool:\n    threads: 2\n    queue_capacity: 256\n"
                      << "registry:\n  url: " << registry_url << "\n  namespace: " << namespace_name
                      << "\n  session_timeout_ms: 2000\n";
  return path;
}

// Reads the child's stdout until the ready line, for at most `timeout`.
bool ReadReadyLine(int fd, std::chrono::milliseconds timeout, std::string* address) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  std::string output;
  char buffer[256];
  while (std::chrono::steady_clock::now() < until) {
    pollfd readable{.fd = fd, .events = POLLIN, .revents = 0};
    if (::poll(&readable, 1, 100) <= 0) continue;
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n <= 0) return false;
    output.append(buffer, static_cast<size_t>(n));
    const size_t at = output.find(kReady);
    const size_t end = at == std::string::npos ? at : output.find('\n', at);
    if (end != std::string::npos) {
      *address = output.substr(at + kReady.size(), end - at - kReady.size());
      return true;
    }
  }
  return false;
}

}  // namespace

::testing::AssertionResult ProviderProcess::Start(const std::string& registry_url,
                                                  const std::string& namespace_name) {
  const std::string config = WriteConfig(registry_url, namespace_name);
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
    ::execl(ECHO_SERVER_BINARY, "echo-server", "--config", config.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(out[1]);
  const bool ready = ReadReadyLine(out[0], std::chrono::seconds(20), &address_);
  ::close(out[0]);
  if (!ready) {
    Kill();
    return ::testing::AssertionFailure() << "echo-server did not print its ready line";
  }
  return ::testing::AssertionSuccess();
}

void ProviderProcess::Kill() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

}  // namespace ferry::cluster
