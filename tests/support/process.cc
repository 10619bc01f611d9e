#include "process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

namespace ferry::testsupport::internal {

using namespace std::chrono_literals;

uint16_t PickFreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  uint16_t port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  close(fd);
  return port;
}

std::filesystem::path MakeTempDir(const std::string& prefix) {
  std::error_code ec;
  const std::filesystem::path temp = std::filesystem::temp_directory_path(ec);
  if (ec) return {};
  std::string pattern = (temp / (prefix + "XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr) return {};
  return pattern;
}

pid_t Spawn(const std::vector<std::string>& args, const std::filesystem::path& log,
            std::string* error) {
  // Everything the child needs is prepared before fork: between fork and exec it may only make
  // async-signal-safe calls.
  std::vector<std::string> copies = args;
  std::vector<char*> argv;
  for (auto& arg : copies) argv.push_back(arg.data());
  argv.push_back(nullptr);
  const int log_fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  const int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (log_fd < 0 || null_fd < 0) {
    if (error != nullptr) *error = "cannot open " + log.string() + " or /dev/null";
    if (log_fd >= 0) close(log_fd);
    if (null_fd >= 0) close(null_fd);
    return -1;
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    // The signal follows the thread that forked (the test's main thread, normally).
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    dup2(null_fd, 0);
    dup2(log_fd, 1);
    dup2(log_fd, 2);
    execv(argv[0], argv.data());
    _exit(127);
  }
  const int fork_errno = errno;
  close(log_fd);
  close(null_fd);
  if (pid < 0) {
    if (error != nullptr) *error = std::string("cannot fork: ") + std::strerror(fork_errno);
    return -1;
  }
  return pid;
}

bool Exited(pid_t pid, int* status) {
  int local = 0;
  if (waitpid(pid, &local, WNOHANG) != pid) return false;
  if (status != nullptr) *status = local;
  return true;
}

bool WaitExit(pid_t pid, std::chrono::milliseconds timeout, int* status) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!Exited(pid, status)) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(20ms);
  }
  return true;
}

void Terminate(pid_t pid, std::chrono::milliseconds grace) {
  if (pid <= 0) return;
  kill(pid, SIGTERM);
  if (!WaitExit(pid, grace)) KillNow(pid);
}

void KillNow(pid_t pid) {
  if (pid <= 0) return;
  kill(pid, SIGKILL);
  while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
}

uint64_t FileSize(const std::filesystem::path& path) {
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  return ec ? 0 : size;
}

std::string FileTail(const std::filesystem::path& path, uint64_t from, size_t max_bytes) {
  std::ifstream file(path);
  if (from > 0) file.seekg(static_cast<std::streamoff>(from));
  std::stringstream content;
  content << file.rdbuf();
  const std::string text = content.str();
  return text.size() > max_bytes ? text.substr(text.size() - max_bytes) : text;
}

bool LogShowsPortInUse(const std::filesystem::path& path, uint64_t from) {
  return FileTail(path, from, 1 << 20).find("Address already in use") != std::string::npos;
}

std::string DescribeStatus(int status) {
  if (WIFEXITED(status)) return "exit code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}

}  // namespace ferry::testsupport::internal
