#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "echo.ferry.h"
#include "ferry/framework/channel.h"

namespace ferry::e2e {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// The echo provider as a real child process, so it can be killed with SIGKILL.
class EchoProcess {
 public:
  explicit EchoProcess(uint16_t port) : port_(port) {}
  ~EchoProcess() { Kill(); }

  // Starts echo-server and waits until it prints its listening line.
  void Start() {
    int out[2];
    ASSERT_EQ(::pipe(out), 0);
    pid_ = ::fork();
    ASSERT_GE(pid_, 0);
    if (pid_ == 0) {
      ::dup2(out[1], STDOUT_FILENO);
      ::close(out[0]);
      ::close(out[1]);
      const std::string port = std::to_string(port_);
      ::execl(ECHO_SERVER_BINARY, "echo-server", "--config", ConfigPath().c_str(), "--port",
              port.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(out[1]);
    FILE* stdout_of_child = ::fdopen(out[0], "r");
    char line[256];
    bool ready = false;
    while (!ready && std::fgets(line, sizeof(line), stdout_of_child) != nullptr) {
      ready = std::string(line).find("echo-server listening on") != std::string::npos;
    }
    std::fclose(stdout_of_child);
    ASSERT_TRUE(ready) << "echo-server did not start";
  }

  void Kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

 private:
  static std::string ConfigPath() {
    static const std::string path = [] {
      std::string p = ::testing::TempDir() + "/echo-e2e.yaml";
      std::ofstream(p) << "server:\n  listen: 127.0.0.1:0\n  business_pool:\n"
                          "    threads: 2\n    queue_capacity: 64\nlog:\n  level: warn\n";
      return p;
    }();
    return path;
  }

  uint16_t port_;
  pid_t pid_ = -1;
};

uint16_t FreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

TEST(ProviderProcessTest, KilledProviderFailsPendingCallsAndTheClientReconnects) {
  const uint16_t port = FreePort();
  EchoProcess provider(port);
  ASSERT_NO_FATAL_FAILURE(provider.Start());

  std::shared_ptr<Channel> channel;
  ASSERT_TRUE(NewChannel(ClientOptions{.target = "127.0.0.1:" + std::to_string(port),
                                       .default_timeout = 30s,
                                       .reconnect_initial = 10ms,
                                       .reconnect_max = 200ms},
                         &channel)
                  .ok());
  demo::EchoServiceProxy proxy(channel);
  demo::EchoRequest hello;
  hello.set_payload("hello");
  ASSERT_TRUE(proxy.Echo(hello).ok());

  // Calls that will still be running when the provider dies.
  std::vector<CallFuture<demo::EchoResponse>> pending;
  demo::DelayRequest slow;
  slow.set_sleep_ms(20000);
  for (int i = 0; i < 4; ++i) pending.push_back(proxy.DelayAsync(slow));
  std::this_thread::sleep_for(100ms);

  const auto killed_at = Clock::now();
  provider.Kill();
  for (auto& call : pending) {
    auto r = call.get();
    EXPECT_EQ(r.status().code(), StatusCode::UNAVAILABLE) << r.status();
  }
  // Promptly: on the connection's loss, not on the calls' 30 s timeout.
  EXPECT_LT(Clock::now() - killed_at, 10s);

  // While the provider is down calls fail fast rather than hang.
  auto down = proxy.Echo(hello, CallOptions{.timeout = 2s});
  EXPECT_FALSE(down.ok());

  ASSERT_NO_FATAL_FAILURE(provider.Start());
  bool recovered = false;
  for (int attempt = 0; attempt < 100 && !recovered; ++attempt) {
    recovered = proxy.Echo(hello, CallOptions{.timeout = 1s}).ok();
    if (!recovered) std::this_thread::sleep_for(50ms);
  }
  EXPECT_TRUE(recovered) << "the channel did not reconnect to the restarted provider";
}

}  // namespace
}  // namespace ferry::e2e
