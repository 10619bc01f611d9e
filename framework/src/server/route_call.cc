#include "server/route_call.h"

#include <google/protobuf/empty.pb.h>

#include <exception>
#include <string>

#include "http/http_session.h"
#include "http/http_status.h"
#include "logger.h"
#include "server/business_pool.h"
#include "server/http_call_context.h"
#include "server/server_connection.h"

namespace ferry::server {
namespace {

const google::protobuf::Message& NoRequest() { return google::protobuf::Empty::default_instance(); }

HttpResponse Error(const Status& status) { return http::HttpSession::CallAnswer(status, nullptr); }

class RouteCallTask final : public BusinessPool::Task {
 public:
  explicit RouteCallTask(std::shared_ptr<RouteCall> call) : call_(std::move(call)) {}
  void Run() override {
    std::unique_ptr<RouteCallTask> owned(this);
    call_->Run();
  }

 private:
  const std::shared_ptr<RouteCall> call_;
};

}  // namespace

RouteCall::RouteCall(std::shared_ptr<ServerConnection> connection, const HttpRoute& route,
                     const http::HttpRouter::RouteFilters* filters, const HttpRequest& request,
                     uint64_t exchange)
    : connection_(std::move(connection)),
      route_(route),
      filters_(filters),
      request_(request),
      exchange_(exchange) {}

void RouteCall::Start(std::shared_ptr<RouteCall> call) {
  RouteCall& self = *call;
  if (self.filters_ != nullptr) {
    AdmissionContext& context = self.context_;
    context.service_ = http::HttpRouter::kFilterService;
    context.method_ = self.filters_->method;
    const auto now = ServerContext::Clock::now();
    RequestFraming framing;
    if (Status filled =
            HttpCallContext::Fill(self.request_, *self.connection_, now, &context, &framing);
        !filled.ok()) {
      return self.Finish(Error(filled));
    }
    if (Status admitted = self.connection_->filters().Admit(context, self.request_.body(), framing,
                                                            self.filters_->states, &self.pass_);
        !admitted.ok()) {
      return self.Finish(Error(admitted));
    }
  }
  if (self.route_.on_io_thread) return self.Run();
  if (self.route_.answer_on_io_thread) {
    if (!self.Enter()) return;
    std::optional<HttpResponse> answer;
    try {
      answer = self.route_.answer_on_io_thread(self.request_);
    } catch (const std::exception& e) {
      return self.Threw(e);
    }
    if (answer) return self.Finish(std::move(*answer));
  }
  std::unique_ptr<BusinessPool::Task> task = std::make_unique<RouteCallTask>(std::move(call));
  BusinessPool& pool = *self.connection_->core().pool;
  BusinessPool::Refusal refusal{};
  if (!pool.TrySubmit(&task, self.request_.body().size(), &refusal)) {
    task.reset();
    self.Finish(Error(Status(StatusCode::OVERLOADED, pool.RefusalMessage(refusal))));
  }
}

bool RouteCall::Enter() {
  entered_ = true;
  if (filters_ == nullptr) return true;
  Status entered = connection_->filters().Enter(context_, NoRequest(), filters_->states, &pass_);
  if (!entered.ok()) Finish(Error(entered));
  return entered.ok();
}

void RouteCall::Threw(const std::exception& e) {
  Logger().warn("ferry server: HTTP route {} {} threw: {}", route_.method, route_.pattern,
                e.what());
  Finish(
      Error(Status(StatusCode::INTERNAL, "the route's handler threw: " + std::string(e.what()))));
}

void RouteCall::Run() {
  if (!entered_ && !Enter()) return;
  HttpReply reply(
      [self = shared_from_this()](HttpResponse response) { self->Finish(std::move(response)); });
  try {
    route_.handler(request_, std::move(reply));
  } catch (const std::exception& e) {
    Threw(e);
  }
}

void RouteCall::Finish(HttpResponse response) {
  if (finished_.exchange(true)) return;
  if (filters_ != nullptr) {
    const StatusCode code = http::StatusCodeOfHttp(response.status);
    const Status outcome = code == StatusCode::OK
                               ? Status::Ok()
                               : Status(code, "HTTP " + std::to_string(response.status));
    connection_->filters().Leave(context_, NoRequest(), filters_->states, outcome, &pass_);
  }
  connection_->AnswerHttp(exchange_, std::move(response));
}

}  // namespace ferry::server
