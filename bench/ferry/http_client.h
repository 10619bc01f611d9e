#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ferry::bench {

struct HttpResult {
  int status = 0;  // 0: no answer (connection failed or closed)
  std::string location;
  std::string body;
};

// One keep-alive HTTP/1.1 connection, blocking, for one thread: reconnects when the server
// closed it. Enough for ferry-bench's short-link workload (Content-Length bodies only).
class HttpConnection {
 public:
  HttpConnection(std::string host, uint16_t port) : host_(std::move(host)), port_(port) {}
  ~HttpConnection() { Close(); }
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  // `headers` are whole lines without CRLF.
  HttpResult Call(const std::string& method, const std::string& path,
                  const std::vector<std::string>& headers = {}, const std::string& body = "");

 private:
  bool Connect();
  void Close();
  bool ReadResponse(HttpResult* result);

  const std::string host_;
  const uint16_t port_;
  int fd_ = -1;
  std::string buffer_;  // bytes read past the last response
};

}  // namespace ferry::bench
