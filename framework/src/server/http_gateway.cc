#include "server/http_gateway.h"

#include <boost/beast/core/string.hpp>

#include <algorithm>
#include <cctype>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

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

// application/json or application/<anything>+json, with any parameters (charset=utf-8). A
// browser sends a cross-site POST without asking the server first (CORS) only with text/plain,
// a form's types or no body type: none of them is JSON, so such a POST never reaches a method.
bool IsJson(std::string_view content_type) {
  std::string_view type = content_type.substr(0, content_type.find(';'));
  const size_t begin = type.find_first_not_of(" \t");
  if (begin == std::string_view::npos) return false;
  type = type.substr(begin, type.find_last_not_of(" \t") - begin + 1);
  constexpr std::string_view kApplication = "application/";
  if (type.size() <= kApplication.size() ||
      !boost::beast::iequals(type.substr(0, kApplication.size()), kApplication)) {
    return false;
  }
  const std::string_view subtype = type.substr(kApplication.size());
  return boost::beast::iequals(subtype, "json") ||
         (subtype.size() > 5 && boost::beast::iequals(subtype.substr(subtype.size() - 5), "+json"));
}

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
  if (const std::string_view type = request.Header("Content-Type"); !IsJson(type)) {
    HttpResponse refused;
    refused.status = 415;
    refused.Set("Content-Type", "application/json");
    refused.body = http::ErrorJson(
        StatusCode::INVALID_ARGUMENT,
        type.empty() ? "the JSON gateway takes Content-Type: application/json; the request has none"
                     : "the JSON gateway takes Content-Type: application/json, not '" +
                           std::string(type) + "'");
    connection.AnswerHttp(exchange, std::move(refused));
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
  BusinessPool::Refusal refusal{};
  if (!core.pool->TrySubmit(&task, request.body().size(), &refusal)) {
    task.reset();
    connection.AnswerHttp(
        exchange, Error(Status(StatusCode::OVERLOADED, core.pool->RefusalMessage(refusal))));
  }
  return true;
}

void RunRoute(ServerConnection& connection, const http::HttpRouter::Match& match,
              const HttpRequest& request, uint64_t exchange) {
  if (match.route->admin) {
    if (std::optional<HttpResponse> refused = connection.core().admin_guard.Refusal(request)) {
      connection.AnswerHttp(exchange, std::move(*refused));
      return;
    }
  }
  const bool filtered = match.filters != nullptr && !connection.filters().empty();
  RouteCall::Start(std::make_shared<RouteCall>(connection.shared_from_this(), *match.route,
                                               filtered ? match.filters : nullptr, request,
                                               exchange));
}

}  // namespace ferry::server
