#include "filter_fixture.h"

#include "ferry/framework/config.h"

namespace ferry::plugins_test {

void CountingEchoService::Count(const ServerContext& context) {
  std::lock_guard lock(mu_);
  last_verified_caller_ = context.verified_caller();
  last_verified_user_ = context.verified_user();
  last_verified_roles_ = context.verified_roles();
  ++handled_;
}

std::string CountingEchoService::last_verified_caller() const {
  std::lock_guard lock(mu_);
  return last_verified_caller_;
}

std::string CountingEchoService::last_verified_user() const {
  std::lock_guard lock(mu_);
  return last_verified_user_;
}

std::vector<std::string> CountingEchoService::last_verified_roles() const {
  std::lock_guard lock(mu_);
  return last_verified_roles_;
}

Status CountingEchoService::Echo(ServerContext& context, const demo::EchoRequest& request,
                                 demo::EchoResponse* response) {
  Count(context);
  return echo_.Echo(context, request, response);
}

Status CountingEchoService::Delay(ServerContext& context, const demo::DelayRequest& request,
                                  demo::EchoResponse* response) {
  Count(context);
  return echo_.Delay(context, request, response);
}

std::vector<FilterSpec> Filters(const std::string& side, const std::string& yaml_list) {
  Config config;
  const std::string yaml = side == "server" ? "server:\n  filters: " + yaml_list + "\n"
                                            : "clients:\n  test:\n    target: 127.0.0.1:1\n"
                                              "    filters: " +
                                                  yaml_list + "\n";
  const Status status = ParseConfig(yaml, "test", &config);
  EXPECT_TRUE(status.ok()) << status;
  return side == "server" ? config.server.filters : config.clients["test"].cluster.client.filters;
}

void FilterFixture::StartServer(const std::string& server_filters_yaml,
                                std::vector<std::shared_ptr<ServerFilter>> added) {
  const Status status = TryStartServer(server_filters_yaml, std::move(added));
  ASSERT_TRUE(status.ok()) << status;
}

Status FilterFixture::TryStartServer(const std::string& server_filters_yaml,
                                     std::vector<std::shared_ptr<ServerFilter>> added) {
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.filters = Filters("server", server_filters_yaml);
  options.http.trusted_proxies = trusted_proxies_;
  server_ = std::make_unique<Server>(std::move(options));
  if (Status s = server_->AddService(&service_); !s.ok()) return s;
  for (HttpRoute& route : routes_) {
    if (Status s = server_->AddHttpRoute(std::move(route)); !s.ok()) return s;
  }
  routes_.clear();
  for (size_t i = 0; i < added.size(); ++i) {
    if (Status s = server_->AddFilter("added" + std::to_string(i), added[i]); !s.ok()) return s;
  }
  Status status = server_->Start();
  if (!status.ok()) server_.reset();
  return status;
}

demo::EchoServiceProxy FilterFixture::NewProxy(const std::string& client_filters_yaml) {
  ClientOptions options;
  options.target = "127.0.0.1:" + std::to_string(server_->port());
  options.filters = Filters("client", client_filters_yaml);
  std::shared_ptr<Channel> channel;
  const Status status = NewChannel(options, &channel);
  EXPECT_TRUE(status.ok()) << status;
  return demo::EchoServiceProxy(std::move(channel));
}

void FilterFixture::TearDown() {
  if (server_) server_->Stop();
}

demo::EchoRequest EchoOf(std::string payload) {
  demo::EchoRequest request;
  request.set_payload(std::move(payload));
  return request;
}

}  // namespace ferry::plugins_test
