#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>

#include "ferry/framework/http.h"
#include "ferry/framework/server_context.h"
#include "filter/server_filter_chain.h"
#include "http/http_router.h"

namespace ferry::server {

class ServerConnection;

// One request of an HTTP route: its handler on the IO thread or the business pool (503 when
// full; a handler that throws is answered 500), after the route's answer_on_io_thread declined,
// kept with the connection, and so the request it reads, until it answered. With `filters` (a route
// that is not an admin page, on a server with filters) it goes through them as a call of method
// "GET /{code}" of service "http" with an empty request message: OnAdmit on the IO thread (a
// refusal costs no worker), OnCall before the handler, OnDone once the handler answered, with the
// status its answer's HTTP status stands for. A refusal is answered as the JSON gateway answers one
// (429 with Retry-After, 401, ...).
class RouteCall : public std::enable_shared_from_this<RouteCall> {
 public:
  RouteCall(std::shared_ptr<ServerConnection> connection, const HttpRoute& route,
            const http::HttpRouter::RouteFilters* filters, const HttpRequest& request,
            uint64_t exchange);

  // Admits the request and runs the handler on the thread the route asks for.
  static void Start(std::shared_ptr<RouteCall> call);
  // The filters' OnCall (unless answer_on_io_thread passed it on), then the handler: on the
  // route's thread, once Start admitted the call.
  void Run();

 private:
  // The filters' OnCall; false when one refused the call (answered).
  bool Enter();
  void Threw(const std::exception& e);
  // The call's one answer: later ones (a handler that answered, then threw) are dropped.
  void Finish(HttpResponse response);

  const std::shared_ptr<ServerConnection> connection_;
  const HttpRoute& route_;
  const http::HttpRouter::RouteFilters* const filters_;  // null: not filtered
  const HttpRequest& request_;                           // the connection's: alive while it is
  const uint64_t exchange_;
  AdmissionContext context_;
  filter::ServerFilterPass pass_;
  bool entered_ = false;  // OnCall ran: set before the pool gets the call
  std::atomic<bool> finished_{false};
};

}  // namespace ferry::server
