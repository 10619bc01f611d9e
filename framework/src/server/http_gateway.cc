#include "server/http_gateway.h"

#include <memory>
#include <string>

#include "http/http_router.h"
#include "http/http_session.h"
#include "http/http_status.h"
#include "server/business_pool.h"
#include "server/route_call.h"
#include "server/server_call.h"
#include "server/server_connection.h"

namespace ferry::server {
namespace {

HttpResponse Error(const Status& status) { return http::HttpSession::CallAnswer(status, nullptr); }

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
  const bool filtered = match.filters != nullptr && !connection.filters().empty();
  RouteCall::Start(std::make_shared<RouteCall>(connection.shared_from_this(), *match.route,
                                               filtered ? match.filters : nullptr, request,
                                               exchange));
}

}  // namespace ferry::server
