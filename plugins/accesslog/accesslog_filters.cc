#include "accesslog_filters.h"

#include <memory>
#include <string>

#include "access_log.h"
#include "ferry/codec/extension_registry.h"
#include "ferry/framework/filter.h"

namespace ferry::accesslog {
namespace {

void OpenFromConfig(config::ConfigReader& config, std::unique_ptr<AccessLog>* out) {
  std::string file;
  config.String("file", &file);
  if (Status status = AccessLog::Open(file, out); !status.ok()) {
    config.Invalid("file", status.message());
  }
}

class AccessLogClientFilter final : public ClientFilter {
 public:
  void Configure(config::ConfigReader& config) override { OpenFromConfig(config, &log_); }
  Status OnCall(ClientCall&) override { return Status::Ok(); }
  // The client knows no peer: the channel picks the connection after the filters ran.
  void OnDone(const ClientCall& call, const Status& status,
              std::chrono::nanoseconds latency) override {
    log_->Write("client", {call.options.trace_id, "-", call.options.parent_span_id},
                call.method.service, call.method.method, "-", status, latency);
  }

 private:
  std::unique_ptr<AccessLog> log_;
};

class AccessLogServerFilter final : public ServerFilter {
 public:
  void Configure(config::ConfigReader& config) override { OpenFromConfig(config, &log_); }
  Status OnCall(ServerCall&) override { return Status::Ok(); }
  void OnDone(const ServerCall& call, const Status& status,
              std::chrono::nanoseconds latency) override {
    const ServerContext& context = call.context;
    log_->Write("server", {context.trace_id(), context.span_id(), context.parent_span_id()},
                context.service(), context.method(), context.peer(), status, latency);
  }

 private:
  std::unique_ptr<AccessLog> log_;
};

}  // namespace

void RegisterAccessLogFilters(ExtensionRegistry& registry) {
  registry.Register<ClientFilter>("accesslog",
                                  [] { return std::make_shared<AccessLogClientFilter>(); });
  registry.Register<ServerFilter>("accesslog",
                                  [] { return std::make_shared<AccessLogServerFilter>(); });
}

}  // namespace ferry::accesslog
