#include "http_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <strings.h>
#include <cstdlib>
#include <cstring>

namespace ferry::bench {

bool HttpConnection::Connect() {
  fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd_ < 0) return false;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port_);
  if (::inet_pton(AF_INET, host_.c_str(), &address.sin_addr) != 1 ||
      ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    Close();
    return false;
  }
  const int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  buffer_.clear();
  return true;
}

void HttpConnection::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool HttpConnection::ReadResponse(HttpResult* result) {
  size_t end = std::string::npos;
  char chunk[16384];
  while ((end = buffer_.find("\r\n\r\n")) == std::string::npos) {
    const ssize_t n = ::recv(fd_, chunk, sizeof(chunk), 0);
    if (n <= 0) return false;
    buffer_.append(chunk, static_cast<size_t>(n));
  }
  const std::string head = buffer_.substr(0, end);
  if (!head.starts_with("HTTP/1.1 ") || head.size() < 12) return false;
  result->status = std::atoi(head.substr(9, 3).c_str());
  size_t length = 0;
  bool close = false;
  size_t at = head.find("\r\n");
  while (at != std::string::npos && at < head.size()) {
    const size_t next = head.find("\r\n", at + 2);
    const std::string line =
        head.substr(at + 2, next == std::string::npos ? std::string::npos : next - at - 2);
    const size_t colon = line.find(':');
    if (colon != std::string::npos) {
      std::string value = line.substr(colon + 1);
      while (!value.empty() && value.front() == ' ') value.erase(0, 1);
      const std::string name = line.substr(0, colon);
      if (strcasecmp(name.c_str(), "Content-Length") == 0)
        length = std::strtoul(value.c_str(), nullptr, 10);
      if (strcasecmp(name.c_str(), "Location") == 0) result->location = value;
      if (strcasecmp(name.c_str(), "Connection") == 0 && strcasecmp(value.c_str(), "close") == 0) {
        close = true;
      }
    }
    at = next;
  }
  buffer_.erase(0, end + 4);
  while (buffer_.size() < length) {
    const ssize_t n = ::recv(fd_, chunk, sizeof(chunk), 0);
    if (n <= 0) return false;
    buffer_.append(chunk, static_cast<size_t>(n));
  }
  result->body = buffer_.substr(0, length);
  buffer_.erase(0, length);
  if (close) Close();
  return true;
}

HttpResult HttpConnection::Call(const std::string& method, const std::string& path,
                                const std::vector<std::string>& headers, const std::string& body) {
  std::string request = method + " " + path + " HTTP/1.1\r\nHost: " + host_ +
                        "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  for (const std::string& header : headers) request += header + "\r\n";
  request += "\r\n" + body;
  // One retry on a fresh connection: the server may have closed an idle one.
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (fd_ < 0 && !Connect()) return {};
    if (::send(fd_, request.data(), request.size(), MSG_NOSIGNAL) ==
        static_cast<ssize_t>(request.size())) {
      HttpResult result;
      if (ReadResponse(&result)) return result;
    }
    Close();
  }
  return {};
}

}  // namespace ferry::bench
