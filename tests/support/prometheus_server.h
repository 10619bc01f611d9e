#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace ferry::testsupport {

// What one HTTP exchange over loopback gave: the status (0 when there was no response) and the
// body, or what went wrong.
struct LoopbackHttpResult {
  int status = 0;
  std::string body;
  std::string error;  // empty when a response was read
};

// One HTTP/1.1 request to 127.0.0.1:`port` on a connection of its own ("Connection: close"),
// the whole exchange bounded by `timeout` (connect, send and read), so that a server that never
// answers fails the test instead of hanging it.
LoopbackHttpResult LoopbackHttp(uint16_t port, std::string_view method, std::string_view target,
                                std::string_view body = "",
                                std::chrono::milliseconds timeout = std::chrono::seconds(10));

// `text` percent-encoded for a URL's query string (everything but RFC 3986's unreserved
// characters).
std::string UrlEncode(std::string_view text);

// A real Prometheus server (Debian's `prometheus`) on 127.0.0.1 at a kernel-chosen port,
// scraping the targets given to Start() every second as job "ferry", with its TSDB in
// <dir>/data, its generated config in <dir>/prometheus.yml and its log in <dir>/prometheus.log,
// a temporary directory removed on destruction. The process is killed if the test process
// dies.
class PrometheusServer {
 public:
  static constexpr std::string_view kJob = "ferry";

  PrometheusServer();
  ~PrometheusServer();  // Stop(), then removes the directory
  PrometheusServer(const PrometheusServer&) = delete;
  PrometheusServer& operator=(const PrometheusServer&) = delete;

  // Writes a config scraping `targets` ("host:port", path /metrics) and starts Prometheus;
  // waits (up to 30 s) until /-/ready answers 200. On failure the result carries the tail of
  // the log.
  ::testing::AssertionResult Start(const std::vector<std::string>& targets);
  // SIGTERM, SIGKILL after 10 s; waits for the process to exit. No-op when not running.
  void Stop();

  // GET /api/v1/query?query=`expr`: an instant query evaluated now. The body is Prometheus'
  // JSON answer.
  LoopbackHttpResult Query(std::string_view expr) const;

  bool running() const { return pid_ > 0; }
  uint16_t port() const { return port_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path log_path() const { return dir_ / "prometheus.log"; }
  std::string LogTail() const;

 private:
  // One attempt on a new port; `port_taken` tells that another process held it.
  ::testing::AssertionResult StartOnce(bool* port_taken);
  // Ready, and the server answering is ours: its flags name our TSDB directory.
  bool ReadyAndOurs() const;

  std::filesystem::path dir_;
  uint16_t port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace ferry::testsupport
