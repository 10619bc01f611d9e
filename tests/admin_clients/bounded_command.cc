#include "bounded_command.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string_view>

#include "process.h"

namespace ferry::admin_clients_test {

CommandResult RunBounded(const std::vector<std::string>& args,
                         const std::filesystem::path& stdin_path,
                         const std::filesystem::path& stdout_path,
                         const std::filesystem::path& stderr_path,
                         std::chrono::milliseconds timeout,
                         const std::vector<std::string>& environment) {
  CommandResult result;
  // Everything the child needs is prepared before fork: between fork and exec it may only make
  // async-signal-safe calls.
  std::vector<std::string> copies = args;
  std::vector<char*> argv;
  for (std::string& arg : copies) argv.push_back(arg.data());
  argv.push_back(nullptr);
  std::vector<std::string> variables = environment;
  for (char** variable = environ; *variable != nullptr; ++variable) {
    const std::string_view entry(*variable);
    const std::string_view name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const std::string& given : environment) {
      replaced = replaced || given.substr(0, given.find('=')) == name;
    }
    if (!replaced) variables.emplace_back(entry);
  }
  std::vector<char*> envp;
  for (std::string& variable : variables) envp.push_back(variable.data());
  envp.push_back(nullptr);
  const std::string in = stdin_path.empty() ? std::string("/dev/null") : stdin_path.string();
  const int in_fd = ::open(in.c_str(), O_RDONLY | O_CLOEXEC);
  const int out_fd = ::open(stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const int err_fd = ::open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const auto close_all = [&] {
    for (const int fd : {in_fd, out_fd, err_fd}) {
      if (fd >= 0) ::close(fd);
    }
  };
  if (in_fd < 0 || out_fd < 0 || err_fd < 0) {
    result.error = "cannot open " + in + ", " + stdout_path.string() + " or " +
                   stderr_path.string() + ": " + std::strerror(errno);
    close_all();
    return result;
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    ::dup2(in_fd, STDIN_FILENO);
    ::dup2(out_fd, STDOUT_FILENO);
    ::dup2(err_fd, STDERR_FILENO);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  const int fork_errno = errno;
  close_all();
  if (pid < 0) {
    result.error = std::string("cannot fork: ") + std::strerror(fork_errno);
    return result;
  }
  // Also in the parent: the group must exist before a kill of it could be needed.
  ::setpgid(pid, pid);
  result.started = true;
  int status = 0;
  if (!testsupport::internal::WaitExit(pid, timeout, &status)) {
    result.timed_out = true;
    ::kill(-pid, SIGKILL);
    testsupport::internal::KillNow(pid);
    return result;
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  return result;
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream file(path);
  std::stringstream content;
  content << file.rdbuf();
  return content.str();
}

}  // namespace ferry::admin_clients_test
