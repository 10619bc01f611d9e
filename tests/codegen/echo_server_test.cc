#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "echo.ferry.h"
#include "ferry/framework/channel.h"

extern char** environ;

namespace ferry::demo {
namespace {

using Clock = std::chrono::steady_clock;

// build/bin/echo-server run as scripts run it: stdout and stderr captured, stopped by a signal.
class EchoServerProcess {
 public:
  explicit EchoServerProcess(std::vector<std::string> args) {
    args.insert(args.begin(), ECHO_SERVER_PATH);
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    int out[2];
    int err[2];
    EXPECT_EQ(pipe2(out, O_CLOEXEC), 0);
    EXPECT_EQ(pipe2(err, O_CLOEXEC), 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
    EXPECT_EQ(posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    close(out[1]);
    close(err[1]);
    stdout_ = out[0];
    stderr_ = err[0];
    // Stderr() must not hang on a process that is still running.
    fcntl(stderr_, F_SETFL, O_NONBLOCK);
  }

  ~EchoServerProcess() {
    if (pid_ > 0 && !exit_status_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    close(stdout_);
    close(stderr_);
  }

  // The first line on stdout, or nullopt if none came within `timeout`.
  std::optional<std::string> ReadStdoutLine(std::chrono::milliseconds timeout) {
    std::string line;
    const Clock::time_point deadline = Clock::now() + timeout;
    while (Clock::now() < deadline) {
      pollfd fd{stdout_, POLLIN, 0};
      if (poll(&fd, 1, 50) <= 0) continue;
      char c;
      if (read(stdout_, &c, 1) != 1) return std::nullopt;
      if (c == '\n') return line;
      line += c;
    }
    return std::nullopt;
  }

  // What the process wrote to stderr so far.
  std::string Stderr() {
    std::string text;
    std::array<char, 4096> buffer;
    for (ssize_t n; (n = read(stderr_, buffer.data(), buffer.size())) > 0;)
      text.append(buffer.data(), n);
    return text;
  }

  void Signal(int signal) { kill(pid_, signal); }

  // The exit code, or nullopt if it neither exited normally nor within `timeout`.
  std::optional<int> WaitForExit(std::chrono::milliseconds timeout) {
    const Clock::time_point deadline = Clock::now() + timeout;
    while (!exit_status_ && Clock::now() < deadline) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        exit_status_ = status;
      } else {
        usleep(10'000);
      }
    }
    if (!exit_status_ || !WIFEXITED(*exit_status_)) return std::nullopt;
    return WEXITSTATUS(*exit_status_);
  }

 private:
  pid_t pid_ = -1;
  int stdout_ = -1;
  int stderr_ = -1;
  std::optional<int> exit_status_;
};

constexpr std::chrono::seconds kProcessTimeout{20};

std::string WriteConfig(const std::string& name, const std::string& yaml) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << yaml;
  return path;
}

// The shipped config, but on an ephemeral port: --port 0 overrides its 7001.
TEST(EchoServerTest, ServesUntilSigtermThenExitsZero) {
  EchoServerProcess server(
      {"--config", FERRY_SOURCE_DIR "/demo-services/echo/config/echo-server.yaml", "--port", "0"});
  const std::optional<std::string> ready = server.ReadStdoutLine(kProcessTimeout);
  ASSERT_TRUE(ready.has_value()) << server.Stderr();
  const std::string prefix = "echo-server listening on 127.0.0.1:";
  ASSERT_TRUE(ready->starts_with(prefix)) << *ready;
  const int port = std::stoi(ready->substr(prefix.size()));
  ASSERT_GT(port, 0);
  ASSERT_NE(port, 7001);

  {
    ClientOptions options;
    options.target = "127.0.0.1:" + std::to_string(port);
    std::shared_ptr<Channel> channel;
    ASSERT_TRUE(NewChannel(options, &channel).ok());
    EchoServiceProxy echo(channel);
    EchoRequest request;
    request.set_payload("over the wire");
    Result<EchoResponse> reply = echo.Echo(request);
    ASSERT_TRUE(reply.ok()) << reply.status();
    EXPECT_EQ(reply->payload(), "over the wire");

    DelayRequest delay;
    delay.set_fail_code(static_cast<uint32_t>(StatusCode::PERMISSION_DENIED));
    delay.set_fail_message("asked to fail");
    EXPECT_EQ(echo.DelayAsync(delay).get().status(),
              Status(StatusCode::PERMISSION_DENIED, "asked to fail"));
  }

  server.Signal(SIGTERM);
  EXPECT_EQ(server.WaitForExit(kProcessTimeout), 0);
  EXPECT_EQ(server.ReadStdoutLine(std::chrono::milliseconds(100)), std::nullopt)
      << "stdout must hold only the ready line";
}

TEST(EchoServerTest, SigintStopsItToo) {
  const std::string config = WriteConfig("echo_sigint.yaml",
                                         "log: {level: warn}\n"
                                         "server: {listen: '127.0.0.1:0'}\n");
  EchoServerProcess server({"--config", config});
  ASSERT_TRUE(server.ReadStdoutLine(kProcessTimeout).has_value()) << server.Stderr();
  server.Signal(SIGINT);
  EXPECT_EQ(server.WaitForExit(kProcessTimeout), 0);
}

TEST(EchoServerTest, BadConfigExitsTwoNamingTheKey) {
  const std::string config = WriteConfig("echo_bad.yaml",
                                         "server:\n"
                                         "  listen: '127.0.0.1:0'\n"
                                         "  business_pool: {threads: zero}\n");
  EchoServerProcess server({"--config", config});
  EXPECT_EQ(server.WaitForExit(kProcessTimeout), 2);
  EXPECT_NE(server.Stderr().find("server.business_pool.threads"), std::string::npos);
}

TEST(EchoServerTest, BadCommandLineExitsTwoWithUsage) {
  EchoServerProcess server({"--port", "7001"});
  EXPECT_EQ(server.WaitForExit(kProcessTimeout), 2);
  EXPECT_NE(server.Stderr().find("usage: echo-server --config"), std::string::npos);
}

}  // namespace
}  // namespace ferry::demo
