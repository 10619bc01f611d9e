// The HTTP face of a server (framework/src/http/http_session.cc and what it hands requests to):
// request lines, headers, chunked bodies, pipelining, the JSON gateway and the admin pages, as a
// client sends them over one connection of a real server on loopback (fuzz_server.h). Every
// input: the server answers with a well-formed sequence of HTTP/1.x responses, sends nothing
// after one that closes the connection, closes the connection once the client has sent all
// and been answered, and stays up for the next input.
//
// Input: the bytes the client sends, then half-closes. "HEAD" is sent as "HEAP": an answer to
// HEAD has no body whatever its Content-Length says, which only a client that knows what it
// asked can read.
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "fuzz_server.h"
#include "loopback_socket.h"

namespace {

namespace beast_http = boost::beast::http;
using Clock = std::chrono::steady_clock;

// Longer than any input's requests take to be answered; a server that holds a connection past
// it has lost track of one.
constexpr std::chrono::milliseconds kCloseWait{8000};

bool SendAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;  // the server closed first: it refused what came so far
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

enum class Ending { kClosed, kReset, kStillOpen };

// Everything the server sends until it closes, and how it did.
Ending ReadUntilClosed(int fd, std::string* out) {
  const auto until = Clock::now() + kCloseWait;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
    if (left.count() <= 0) return Ending::kStillOpen;
    pollfd readable{.fd = fd, .events = POLLIN, .revents = 0};
    const int ready = ::poll(&readable, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return Ending::kStillOpen;
    char chunk[16384];
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n < 0 && errno == EINTR) continue;
    // Closed with bytes of ours unread: what it sent may be cut short by the reset.
    if (n < 0) return errno == ECONNRESET ? Ending::kReset : Ending::kClosed;
    if (n == 0) return Ending::kClosed;
    out->append(chunk, static_cast<size_t>(n));
  }
}

// Checks that `bytes` are whole responses, one after another, none after a closing one.
void CheckResponses(std::string_view bytes) {
  while (!bytes.empty()) {
    beast_http::response_parser<beast_http::string_body> parser;
    parser.body_limit(64u << 20);
    parser.eager(true);
    boost::system::error_code error;
    const size_t used = parser.put(boost::asio::buffer(bytes.data(), bytes.size()), error);
    FERRY_FUZZ_CHECK(!error && parser.is_done(), "not a whole HTTP response (%s): %.*s",
                     error.message().c_str(), static_cast<int>(std::min<size_t>(bytes.size(), 400)),
                     bytes.data());
    const auto& response = parser.get();
    // An HTTP/1.0 request is answered in 1.0, which its client is sure to read.
    FERRY_FUZZ_CHECK(response.version() == 11 || response.version() == 10, "an answer of HTTP/%u",
                     response.version());
    FERRY_FUZZ_CHECK(response.result_int() >= 100 && response.result_int() < 600, "status %u",
                     response.result_int());
    bytes.remove_prefix(used);
    FERRY_FUZZ_CHECK(response.keep_alive() || bytes.empty(),
                     "%zu bytes after a response that closes the connection", bytes.size());
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ferry::fuzz::TheServer();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string request(reinterpret_cast<const char*>(data), size);
  for (size_t at = 0; (at = request.find("HEAD", at)) != std::string::npos; at += 4) {
    request[at + 3] = 'P';
  }
  const int fd = ferry::test::ConnectLoopback(ferry::fuzz::TheServer().port);
  FERRY_FUZZ_CHECK(fd >= 0, "the server is gone: %s", std::strerror(errno));
  if (SendAll(fd, request)) ::shutdown(fd, SHUT_WR);
  std::string answers;
  const Ending ending = ReadUntilClosed(fd, &answers);
  ::close(fd);
  FERRY_FUZZ_CHECK(ending != Ending::kStillOpen,
                   "the server kept the connection %lld ms after the client was done",
                   static_cast<long long>(kCloseWait.count()));
  // 0xFE starts the binary protocol, whose answers are frames.
  if (ending == Ending::kReset || (!request.empty() && static_cast<uint8_t>(request[0]) == 0xFE)) {
    return 0;
  }
  CheckResponses(answers);
  return 0;
}
