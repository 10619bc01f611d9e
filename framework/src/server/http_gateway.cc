#include "server/http_gateway.h"

#include <exception>
#include <memory>
#include <string>

#include "http/http_router.h"
#include "http/http_session.h"
#include "http/http_status.h"
#include "logger.h"
#include "server/business_pool.h"
#include "server/route_call.h"
#include "server/server_call.h"
#include "server/server_connection.h"

namespace ferry::server {
namespace {

HttpResponse Error(const Status& status) { return http::HttpSession::CallAnswer(status, nullptr); }

// A route's handler as a pool task: it keeps the connection, and so the request it reads, alive
// until the handler has answered.
class RouteTask final : public BusinessPool::Task {
 public:
  RouteTask(std::shared_ptr<ServerConnection> connection, const HttpRoute& route,
            const HttpRequest& request, uint64_t exchange)
      : connection_(std::move(connection)), route_(route), request_(request), exchange_(exchange) {}
  void Run() override {
    std::unique_ptr<RouteTask> owned(this);
    RunHandler(connection_, route_, request_, exchange_);
  }

  static void RunHandler(const std::shared_ptr<ServerConnection>& connection,
                         const HttpRoute& route, const HttpRequest& request, uint64_t exchange) {
    HttpReply reply([connection, exchange](HttpResponse response) {
      connection->AnswerHttp(exchange, std::move(response));
    });
    try {
      route.handler(request, std::move(reply));
    } catch (const std::exception& e) {
      Logger().warn("ferry server: HTTP route {} {} threw: {}", route.method, route.pattern,
                    e.what());
      connection->AnswerHttp(exchange,
                             Error(Status(StatusCode::INTERNAL,
                                          "the route's handler threw: " + std::string(e.what()))));
    }
  }

 private:
  const std::shared_ptr<ServerConnection> connection_;
  const HttpRoute& route_;
  const HttpRequest& request_;
  const uint64_t exchange_;
};

}  // namespace

bool StartGatewayCall(ServerConnection& connection, const HttpRequest& request, uint64_t exchange) {
  const std::vector<std::string_view> segments = http::SplitPath(request.path());
  ServerCore& core = connection.core();
  if (segments.size() != 2 || !core.methods.HasService(segments[0])) return false;
  const MethodTable::Entry* method = nullptr;
  if (Status found = core.methods.Find(segments[0], segments[1], &method); !found.ok()) {
    connection.AnswerHttp(exchange, Error(Status(StatusCode::NOT_FOUND, found.message())));
    return true;
  }
  // Over HTTP nobody else times the call out: at its deadline it is answered 504 and its
  // handler told to stop (ServerContext::cancelled()); a later answer is dropped.
  const auto expire_at_deadline = [&](ServerCall& call) {
    if (call.context().has_deadline()) {
      connection.ExpireHttpCallAt(exchange, call.context().deadline());
    }
  };
  const auto now = std::chrono::steady_clock::now();
  if (method->method->spec->inline_method) {
    ServerCall& call = connection.ReusableCall();
    call.ResetHttp(connection.shared_from_this(), *method, exchange);
    bool answered = false;
    if (Status prepared = call.PrepareHttp(request, now, &answered); !prepared.ok()) {
      call.Abandon();
      if (!answered) connection.AnswerHttp(exchange, Error(prepared));
      return true;
    }
    expire_at_deadline(call);
    connection.RunReusableCall();
    return true;
  }
  auto call = std::make_unique<ServerCall>(connection.shared_from_this(), *method, exchange);
  bool answered = false;
  if (Status prepared = call->PrepareHttp(request, now, &answered); !prepared.ok()) {
    call.reset();
    if (!answered) connection.AnswerHttp(exchange, Error(prepared));
    return true;
  }
  call->Track();
  expire_at_deadline(*call);
  std::unique_ptr<BusinessPool::Task> task = std::move(call);
  if (!core.pool->TrySubmit(&task)) {
    task.reset();
    connection.AnswerHttp(
        exchange, Error(Status(StatusCode::OVERLOADED, "server overloaded: business queue full")));
  }
  return true;
}

void RunRoute(ServerConnection& connection, const http::HttpRouter::Match& match,
              const HttpRequest& request, uint64_t exchange) {
  std::shared_ptr<ServerConnection> self = connection.shared_from_this();
  if (match.filters != nullptr && !connection.filters().empty()) {
    return RouteCall::Start(std::make_shared<RouteCall>(std::move(self), *match.route,
                                                        *match.filters, request, exchange));
  }
  const HttpRoute& route = *match.route;
  if (route.on_io_thread) return RouteTask::RunHandler(self, route, request, exchange);
  std::unique_ptr<BusinessPool::Task> task =
      std::make_unique<RouteTask>(std::move(self), route, request, exchange);
  if (!connection.core().pool->TrySubmit(&task)) {
    task.reset();
    connection.AnswerHttp(
        exchange, Error(Status(StatusCode::OVERLOADED, "server overloaded: business queue full")));
  }
}

}  // namespace ferry::server
