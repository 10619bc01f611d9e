#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ferry/codec/status.h"
#include "ferry/framework/filter.h"
#include "ferry/framework/http.h"
#include "ferry/framework/server_options.h"
#include "ferry/framework/service.h"

namespace ferry {

// A call that took longer than server.slow_call_ms: the server logs it as it ends (warn) and
// keeps the most recent ones (Server::RecentSlowCalls, the status page).
struct SlowCall {
  std::chrono::system_clock::time_point ended;
  std::string call;  // "service/method"
  std::chrono::nanoseconds latency{0};
  StatusCode status = StatusCode::OK;
  std::string trace_id;
  std::string span_id;
  std::string parent_span_id;
  std::string peer;
};

// Acceptor, IO threads and a bounded business pool. Handlers run on the pool, or on the IO
// thread for methods marked (ferry.inline_method); a full pool answers OVERLOADED at once.
class Server {
 public:
  explicit Server(ServerOptions options);
  ~Server();  // Stop()s if still running
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Before Start(). The service is not owned and must outlive the server.
  // ALREADY_EXISTS when a service of the same full name was added.
  Status AddService(Service* service);

  // Before Start(): an HTTP route of the application's (admin pages, say), beside those of the
  // services. Routes that match the same paths are refused by Start(), naming both.
  Status AddHttpRoute(HttpRoute route);

  // Before Start(): a server filter made in code, for one that needs the application's own
  // objects (the short-link service's API-key check reads its key store), where a configured
  // one (server.filters) is made from its name and YAML alone. Runs after the configured
  // filters, in the order added; `name` names it in logs and errors. Its Configure() is not
  // called.
  Status AddFilter(std::string name, std::shared_ptr<ServerFilter> filter);

  // Binds and listens (and on server.http.admin_listen when set); port() is valid afterwards.
  // UNAVAILABLE when an address cannot be bound; INVALID_ARGUMENT for clashing HTTP routes.
  Status Start();
  uint16_t port() const;
  uint16_t admin_port() const;  // 0 without an admin listener

  // The most recent slow calls, newest first.
  std::vector<SlowCall> RecentSlowCalls() const;

  // Graceful: stop accepting, let in-flight calls finish for up to the grace period, close.
  // Safe to call more than once and from any thread but a handler's.
  void Stop();
  // Blocks until Stop() has completed.
  void Wait();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ferry
