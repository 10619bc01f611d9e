#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ferry/framework/server.h"
#include "ferry/framework/service.h"
#include "frame_client.h"

namespace ferry::test {

// A latch the test opens to let blocked handlers go on. Waits are bounded so that a test that
// forgets to open it fails rather than hangs.
class Gate {
 public:
  void Open();
  // False if not opened within `wait`.
  bool WaitOpen(std::chrono::milliseconds wait = FrameClient::kWait);

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
};

// Counts events and lets a test wait until there have been n of them.
class Counter {
 public:
  void Increment();
  int value();
  bool WaitFor(int n, std::chrono::milliseconds wait = FrameClient::kWait);

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int value_ = 0;
};

// "ferry.test.TestService", written by hand against the Service interface with
// google.protobuf.StringValue requests and responses:
//   Echo         pool    returns the request (an empty one leaves the response untouched)
//   InlineEcho   inline  returns the request
//   Repeat       inline  returns as many 'x' as the request's decimal number
//   ThreadName   pool    returns the name of the thread it ran on
//   InlineThreadName  inline  likewise
//   Block        pool    counts itself started, waits for the gate, returns the request
//   Count        pool    counts itself run, returns the request
//   Throw        pool    throws std::runtime_error("boom")
//   Context      pool    returns what its ServerContext says (" caller=" when verified)
//   InlineContext  inline  likewise
//   Later        pool, asynchronous: counts itself started, then a thread of its own waits for
//                the gate and returns the request; the handler itself returns at once
//   InlineLater  inline, asynchronous: likewise
//   Forget       pool, asynchronous: returns without answering, dropping its completion
//   AnswerThenThrow  pool, asynchronous: answers with the request, then throws
class TestService : public Service {
 public:
  static constexpr std::string_view kName = "ferry.test.TestService";

  std::string_view full_name() const override { return kName; }
  std::span<const Method> methods() const override;

  Gate gate;
  Counter blocked;              // Block calls started
  Counter counted;              // Count calls run
  Counter later_started;        // Later and InlineLater calls started
  Counter later_answered;       // Later and InlineLater calls about to answer OK
  Counter ran_then_overloaded;  // OverloadedAfterRunning calls run
};

// Asserts that `client` is connected and served: an Echo of "alive" as request `id` answers OK
// with "alive".
void ExpectServes(FrameClient& client, uint64_t id);

// A server with one TestService, and `routes` when given, on an ephemeral loopback port.
class TestServer {
 public:
  explicit TestServer(ServerOptions options = {}, std::vector<HttpRoute> routes = {});
  ~TestServer();

  Server& server() { return server_; }
  uint16_t port() const { return server_.port(); }
  TestService& service() { return service_; }

 private:
  TestService service_;
  Server server_;
};

}  // namespace ferry::test
