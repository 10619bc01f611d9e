#include "raw_http_client.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <cctype>
#include <cerrno>

#include "loopback_socket.h"

namespace ferry::http_test {

namespace beast_http = boost::beast::http;

RawHttpClient::RawHttpClient(uint16_t port) : fd_(test::ConnectLoopback(port)) {}

RawHttpClient::RawHttpClient(uint16_t port, const char* from)
    : fd_(test::ConnectLoopbackFrom(port, from)) {}

RawHttpClient::~RawHttpClient() {
  if (fd_ >= 0) ::close(fd_);
}

bool RawHttpClient::Send(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

std::optional<RawResponse> RawHttpClient::Read(std::chrono::milliseconds wait, bool to_head) {
  const auto until = std::chrono::steady_clock::now() + wait;
  beast_http::response_parser<beast_http::string_body> parser;
  parser.body_limit(64u << 20);
  parser.eager(true);
  parser.skip(to_head);
  for (;;) {
    while (!buffer_.empty() && !parser.is_done()) {
      boost::system::error_code error;
      const size_t used = parser.put(boost::asio::buffer(buffer_), error);
      buffer_.erase(0, used);
      if (error == beast_http::error::need_more) break;
      if (error) return std::nullopt;
    }
    if (parser.is_done()) break;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd readable{.fd = fd_, .events = POLLIN, .revents = 0};
    // A signal (libFuzzer's timer, say) interrupts the wait or the read, not the response.
    const int ready = ::poll(&readable, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return std::nullopt;
    char chunk[16384];
    const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      // Closed before a response began: there is none.
      if (!parser.got_some()) return std::nullopt;
      // A body delimited by the close of the connection ends here.
      boost::system::error_code error;
      parser.put_eof(error);
      if (error || !parser.is_done()) return std::nullopt;
      break;
    }
    buffer_.append(chunk, static_cast<size_t>(n));
  }
  const auto& message = parser.get();
  RawResponse response;
  response.status = static_cast<int>(message.result_int());
  for (const auto& field : message) {
    std::string name(field.name_string());
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    response.headers[name] = std::string(field.value());
  }
  response.body = message.body();
  response.keep_alive = message.keep_alive();
  return response;
}

bool RawHttpClient::WaitForClose(std::chrono::milliseconds wait) {
  const auto until = std::chrono::steady_clock::now() + wait;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd readable{.fd = fd_, .events = POLLIN, .revents = 0};
    const int ready = ::poll(&readable, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return false;
    char chunk[4096];
    const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;
  }
}

void RawHttpClient::ResetOnClose() {
  const linger reset{.l_onoff = 1, .l_linger = 0};
  ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &reset, sizeof(reset));
}

namespace {

// Whether "Name: value\r\n" lines have a field `lower_name` (lower case), whatever its case.
bool HasHeader(std::string_view lines, std::string_view lower_name) {
  while (!lines.empty()) {
    const size_t end = lines.find("\r\n");
    const std::string_view line = lines.substr(0, end);
    const size_t colon = line.find(':');
    if (colon == lower_name.size() &&
        std::equal(lower_name.begin(), lower_name.end(), line.begin(), [](char a, char b) {
          return a == std::tolower(static_cast<unsigned char>(b));
        })) {
      return true;
    }
    if (end == std::string_view::npos) break;
    lines.remove_prefix(end + 2);
  }
  return false;
}

}  // namespace

std::string Request(std::string_view method, std::string_view target, std::string_view body,
                    std::string_view headers) {
  std::string request;
  request.append(method).append(" ").append(target).append(" HTTP/1.1\r\nHost: localhost\r\n");
  request.append(headers);
  if (method == "POST" && !HasHeader(headers, "content-type")) {
    request.append("Content-Type: application/json\r\n");
  }
  if (!body.empty() || method == "POST") {
    request.append("Content-Length: ").append(std::to_string(body.size())).append("\r\n");
  }
  request.append("\r\n").append(body);
  return request;
}

}  // namespace ferry::http_test
