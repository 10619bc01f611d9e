#pragma once

#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "ferry/codec/status.h"
#include "ferry/framework/http.h"
#include "ferry/framework/server_options.h"
#include "http/http_router.h"

namespace google::protobuf {
class Message;
}

namespace ferry::server {
class ServerConnection;
}

namespace ferry::http {

// The HTTP/1.1 side of one server connection whose first bytes were HTTP (the port speaks both
// protocols): parses requests with Boost.Beast from what the connection reads, answers them one
// at a time in order (keep-alive and pipelining; a pipelined request waits in the buffer while
// the one before it is served, and, as nginx does, until the answers before it have been
// written but for less than a read's worth), and enforces the limits of `server.http`. IO
// thread only, but for the answers, which any thread hands to the connection.
class HttpSession {
 public:
  HttpSession(server::ServerConnection& connection, const HttpOptions& options,
              const HttpRouter& router, HttpRouter::Port port);
  ~HttpSession();
  HttpSession(const HttpSession&) = delete;
  HttpSession& operator=(const HttpSession&) = delete;

  // Where the connection reads into, and how much it read.
  std::span<uint8_t> PrepareRead(size_t min_size);
  void CommitRead(size_t n);
  // The memory the session holds for what it read: its buffer, the body of the request being
  // received and that of the request being served.
  size_t held_bytes() const;
  // Parses and answers what is buffered, as far as it can.
  void Process();
  // Whether the connection should read on: not while a request is being served, nor while the
  // next waits for the answers before it to be written.
  bool WantsRead() const;
  // Answers were written: Process() again if the next request waited for that.
  void Written();
  // Nothing half-received and nothing being served: the connection may close now.
  bool Idle() const;

  // The answer to request `exchange`, if it is still the one in progress.
  void Respond(uint64_t exchange, HttpResponse response);
  // The answer to a call of the JSON gateway: its status, and its response as JSON when OK.
  // Any thread: serializes here, then hands the bytes to the IO thread.
  static HttpResponse CallAnswer(const Status& status, const google::protobuf::Message* response);

  // Runs `expire` at `deadline` unless request `exchange` was answered by then. `expire` answers
  // the request while its call goes on (told to stop): the next request is not served before
  // the call's own answer, which is dropped, says it ended, so that a connection has one call
  // at a time whatever deadlines its requests give.
  void ExpireAt(uint64_t exchange, std::chrono::steady_clock::time_point deadline,
                std::function<void()> expire);

  // The server is draining: answer what is in progress with Connection: close, take no more.
  void Drain();

 private:
  class Exchange;
  struct Parser;

  void StartRequest();
  // Once the request's header is parsed: false, having failed it, when its Transfer-Encoding
  // leaves its length unknown or names a coding the server cannot decode.
  bool CheckFraming();
  void Dispatch();
  void Fail(int status, std::string_view message, StatusCode code = StatusCode::INVALID_ARGUMENT);
  void Write(HttpResponse response, bool close);
  using Clock = std::chrono::steady_clock;
  void ArmRequestTimer();
  void WaitForRequestDeadline(Clock::time_point at);
  void OnRequestTimer();

  server::ServerConnection& connection_;
  const HttpOptions& options_;
  const HttpRouter& router_;
  const HttpRouter::Port port_;
  std::string input_;
  size_t input_begin_ = 0;
  size_t read_at_ = 0;        // where the read in progress writes into input_
  bool dispatching_ = false;  // in Dispatch(): an answer given now needs no Process() of its own
  std::unique_ptr<Parser> parser_;
  std::unique_ptr<Exchange> exchange_;  // the request being served
  uint64_t exchanges_ = 0;              // requests started on this connection
  bool request_started_ = false;        // bytes of the next request arrived
  // The next request waits for the answers before it to be written (ServerConnection::
  // MayServeNextHttp).
  bool stalled_ = false;
  // A request answered at its call's deadline whose call has not ended yet; 0: none.
  uint64_t late_exchange_ = 0;
  bool draining_ = false;
  bool closing_ = false;
  boost::asio::steady_timer request_timer_;
  bool request_timer_armed_ = false;
  // When the request being received must have arrived; max() between requests.
  Clock::time_point request_deadline_ = Clock::time_point::max();
  boost::asio::steady_timer deadline_timer_;  // of the exchange in progress
};

}  // namespace ferry::http
