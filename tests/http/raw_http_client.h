#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace ferry::http_test {

// One response as read off the wire.
struct RawResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  bool keep_alive = true;
};

// A blocking loopback socket that sends exactly the bytes a test gives and reads responses
// with Boost.Beast's parser. Every wait is bounded, so a misbehaving server fails the test
// rather than hanging it.
class RawHttpClient {
 public:
  static constexpr std::chrono::milliseconds kWait{10000};

  explicit RawHttpClient(uint16_t port);
  // From the IPv4 address `from` of 127.0.0.0/8 (ConnectLoopbackFrom).
  RawHttpClient(uint16_t port, const char* from);
  ~RawHttpClient();
  RawHttpClient(const RawHttpClient&) = delete;
  RawHttpClient& operator=(const RawHttpClient&) = delete;

  bool connected() const { return fd_ >= 0; }
  bool Send(std::string_view bytes);
  // The next response; nullopt when the server closed first or `wait` passed. `to_head`: the
  // response to a HEAD request, which has no body whatever its Content-Length says.
  std::optional<RawResponse> Read(std::chrono::milliseconds wait = kWait, bool to_head = false);
  // True when the server closes the connection within `wait` (what it sends first is skipped).
  bool WaitForClose(std::chrono::milliseconds wait = kWait);
  // Makes closing reset the connection, which leaves no TIME_WAIT behind: for clients that
  // connect thousands of times a second (tests/fuzz).
  void ResetOnClose();

 private:
  int fd_ = -1;
  std::string buffer_;
};

// "POST /path HTTP/1.1" with Host: localhost (a name admin pages answer), Content-Length and
// `headers` ("Name: value\r\n" lines). A POST says Content-Type: application/json, what the
// JSON gateway takes, unless `headers` give a Content-Type of their own.
std::string Request(std::string_view method, std::string_view target, std::string_view body = "",
                    std::string_view headers = "");

}  // namespace ferry::http_test
