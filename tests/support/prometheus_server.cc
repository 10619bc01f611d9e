#include "prometheus_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <thread>

#include "process.h"

namespace ferry::testsupport {
namespace {

using namespace std::chrono_literals;
namespace beast_http = boost::beast::http;

constexpr auto kStartTimeout = 30s;
constexpr auto kStopGrace = 10s;

using Clock = std::chrono::steady_clock;

int MillisLeft(Clock::time_point until) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
  return left.count() > 0 ? static_cast<int>(left.count()) : 0;
}

// Polls `fd` for `events` until `until`; false on timeout or error.
bool WaitFor(int fd, short events, Clock::time_point until) {
  for (;;) {
    const int wait = MillisLeft(until);
    if (wait == 0) return false;
    pollfd entry{.fd = fd, .events = events, .revents = 0};
    const int n = ::poll(&entry, 1, wait);
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return false;
  }
}

// Closes the socket however the exchange ends.
struct Socket {
  int fd = -1;
  ~Socket() {
    if (fd >= 0) ::close(fd);
  }
};

LoopbackHttpResult Failed(std::string error) {
  LoopbackHttpResult result;
  result.error = std::move(error);
  return result;
}

}  // namespace

LoopbackHttpResult LoopbackHttp(uint16_t port, std::string_view method, std::string_view target,
                                std::string_view body, std::chrono::milliseconds timeout) {
  const Clock::time_point until = Clock::now() + timeout;
  // Non-blocking throughout: a blocking connect or recv could outlast the bound.
  Socket socket{::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)};
  if (socket.fd < 0) return Failed(std::string("socket: ") + std::strerror(errno));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(socket.fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    if (errno != EINPROGRESS) return Failed(std::string("connect: ") + std::strerror(errno));
    if (!WaitFor(socket.fd, POLLOUT, until)) return Failed("connect timed out");
    int error = 0;
    socklen_t length = sizeof error;
    ::getsockopt(socket.fd, SOL_SOCKET, SO_ERROR, &error, &length);
    if (error != 0) return Failed(std::string("connect: ") + std::strerror(error));
  }

  std::string request;
  request.append(method).append(" ").append(target).append(" HTTP/1.1\r\n");
  request.append("Host: 127.0.0.1:").append(std::to_string(port)).append("\r\n");
  request.append("Connection: close\r\n");
  if (!body.empty() || method == "POST") {
    request.append("Content-Type: application/json\r\n");
    request.append("Content-Length: ").append(std::to_string(body.size())).append("\r\n");
  }
  request.append("\r\n").append(body);
  std::string_view unsent = request;
  while (!unsent.empty()) {
    const ssize_t n = ::send(socket.fd, unsent.data(), unsent.size(), MSG_NOSIGNAL);
    if (n > 0) {
      unsent.remove_prefix(static_cast<size_t>(n));
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (!WaitFor(socket.fd, POLLOUT, until)) return Failed("send timed out");
    } else {
      return Failed(std::string("send: ") + std::strerror(errno));
    }
  }

  beast_http::response_parser<beast_http::string_body> parser;
  parser.body_limit(64u << 20);
  parser.eager(true);
  std::string buffer;
  while (!parser.is_done()) {
    if (!WaitFor(socket.fd, POLLIN, until)) return Failed("no whole response in time");
    char chunk[16384];
    const ssize_t n = ::recv(socket.fd, chunk, sizeof chunk, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n < 0) return Failed(std::string("recv: ") + std::strerror(errno));
    boost::system::error_code error;
    if (n == 0) {
      // A body delimited by the close of the connection ends here.
      parser.put_eof(error);
      if (error || !parser.is_done()) return Failed("connection closed before a whole response");
      break;
    }
    buffer.append(chunk, static_cast<size_t>(n));
    while (!buffer.empty() && !parser.is_done()) {
      const size_t used = parser.put(boost::asio::buffer(buffer), error);
      buffer.erase(0, used);
      if (error == beast_http::error::need_more) break;
      if (error) return Failed("unparsable response: " + error.message());
    }
  }
  LoopbackHttpResult result;
  result.status = static_cast<int>(parser.get().result_int());
  result.body = parser.get().body();
  return result;
}

std::string UrlEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += c;
    } else {
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 0xF];
    }
  }
  return out;
}

PrometheusServer::PrometheusServer() : dir_(internal::MakeTempDir("ferry-prometheus-")) {}

PrometheusServer::~PrometheusServer() {
  Stop();
  std::error_code ignored;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
}

::testing::AssertionResult PrometheusServer::Start(const std::vector<std::string>& targets) {
  if (dir_.empty()) return ::testing::AssertionFailure() << "cannot create a temporary directory";
  if (running()) return ::testing::AssertionFailure() << "Prometheus is running already";
  const std::string prometheus = FERRY_PROMETHEUS;
  if (prometheus.ends_with("NOTFOUND") || access(prometheus.c_str(), X_OK) != 0) {
    return ::testing::AssertionFailure()
           << "prometheus was not found when configuring (" << prometheus
           << "); install Debian's prometheus package (scripts/lib/common.sh) and re-run cmake";
  }
  {
    // Every second, and no longer than that per scrape: Prometheus refuses a timeout longer
    // than the interval. The evaluation interval only matters for rules, of which there are
    // none.
    std::ofstream config(dir_ / "prometheus.yml");
    config << "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
           << "  evaluation_interval: 1s\n"
           << "scrape_configs:\n  - job_name: " << kJob << "\n    metrics_path: /metrics\n"
           << "    static_configs:\n      - targets:\n";
    for (const std::string& target : targets) config << "          - \"" << target << "\"\n";
    if (!config) {
      return ::testing::AssertionFailure() << "cannot write " << (dir_ / "prometheus.yml");
    }
  }
  ::testing::AssertionResult result = ::testing::AssertionFailure();
  // A port picked here can be taken before Prometheus binds it; then another one is tried.
  for (int attempt = 0; attempt < 3; ++attempt) {
    bool port_taken = false;
    result = StartOnce(&port_taken);
    if (result || !port_taken) break;
  }
  return result;
}

::testing::AssertionResult PrometheusServer::StartOnce(bool* port_taken) {
  port_ = internal::PickFreePort();
  if (port_ == 0) return ::testing::AssertionFailure() << "no free port on 127.0.0.1";
  // A fresh TSDB per attempt: a killed attempt may leave its lock behind.
  std::error_code ec;
  std::filesystem::remove_all(dir_ / "data", ec);
  std::filesystem::create_directories(dir_ / "data", ec);
  if (ec) {
    return ::testing::AssertionFailure()
           << "cannot create " << (dir_ / "data") << ": " << ec.message();
  }
  const std::vector<std::string> args = {
      FERRY_PROMETHEUS,
      "--config.file=" + (dir_ / "prometheus.yml").string(),
      "--storage.tsdb.path=" + (dir_ / "data").string(),
      "--web.listen-address=" + address(),
      "--log.level=info",
  };
  std::string error;
  const uint64_t log_start = internal::FileSize(log_path());
  pid_ = internal::Spawn(args, log_path(), &error);
  if (pid_ < 0) return ::testing::AssertionFailure() << "cannot start Prometheus: " << error;

  const auto deadline = Clock::now() + kStartTimeout;
  while (Clock::now() < deadline) {
    int status = 0;
    if (internal::Exited(pid_, &status)) {
      pid_ = -1;
      // Go's wording, not glibc's ("Address already in use").
      *port_taken =
          internal::FileTail(log_path(), log_start, 1 << 20).find("address already in use") !=
          std::string::npos;
      return ::testing::AssertionFailure()
             << "Prometheus exited during startup on port " << port_ << " ("
             << internal::DescribeStatus(status) << "); log:\n"
             << internal::FileTail(log_path(), log_start);
    }
    if (ReadyAndOurs()) return ::testing::AssertionSuccess();
    std::this_thread::sleep_for(50ms);
  }
  Stop();
  return ::testing::AssertionFailure() << "Prometheus did not answer /-/ready with 200 on port "
                                       << port_ << " within 30 s; log:\n"
                                       << internal::FileTail(log_path(), log_start);
}

bool PrometheusServer::ReadyAndOurs() const {
  if (LoopbackHttp(port_, "GET", "/-/ready", "", 2s).status != 200) return false;
  // Another server that won the race for the port could be ready too; ours was given this
  // directory.
  const LoopbackHttpResult flags = LoopbackHttp(port_, "GET", "/api/v1/status/flags", "", 2s);
  return flags.status == 200 &&
         flags.body.find("\"" + (dir_ / "data").string() + "\"") != std::string::npos;
}

void PrometheusServer::Stop() {
  if (!running()) return;
  internal::Terminate(pid_, kStopGrace);
  pid_ = -1;
}

LoopbackHttpResult PrometheusServer::Query(std::string_view expr) const {
  return LoopbackHttp(port_, "GET", "/api/v1/query?query=" + UrlEncode(expr));
}

std::string PrometheusServer::LogTail() const { return internal::FileTail(log_path()); }

}  // namespace ferry::testsupport
