// ferry::App in-process: serving, named clients, the service section, and the deadline and trace
// a handler's downstream calls inherit.
#include "ferry/framework/app.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "echo.ferry.h"
#include "service/echo_service.h"

namespace ferry::app_test {
namespace {

using namespace std::chrono_literals;

Config Parse(const std::string& yaml) {
  Config config;
  const Status status = ParseConfig(yaml, "app.yaml", &config);
  EXPECT_TRUE(status.ok()) << status;
  return config;
}

// A provider of the echo service on an ephemeral loopback port.
class EchoProvider {
 public:
  EchoProvider() : app_("echo", Parse("server: {listen: 127.0.0.1:0, drain_delay_ms: 0}\n")) {
    app_.AddService(&echo_);
    const Status started = app_.Start();
    EXPECT_TRUE(started.ok()) << started;
  }
  std::string address() const { return "127.0.0.1:" + std::to_string(app_.port()); }
  App& app() { return app_; }

 private:
  demo::EchoServiceImpl echo_;
  App app_;
};

demo::EchoRequest EchoOf(std::string payload) {
  demo::EchoRequest request;
  request.set_payload(std::move(payload));
  return request;
}

TEST(AppTest, ServesItsServicesUntilStopped) {
  EchoProvider provider;
  EXPECT_TRUE(provider.app().ready());
  ClientOptions options;
  options.target = provider.address();
  std::shared_ptr<Channel> channel;
  ASSERT_TRUE(NewChannel(options, &channel).ok());
  demo::EchoServiceProxy proxy(channel);
  Result<demo::EchoResponse> reply = proxy.Echo(EchoOf("hi"));
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(reply->payload(), "hi");
  provider.app().Stop();
  EXPECT_FALSE(provider.app().ready());
  provider.app().Stop();  // idempotent
}

// A filter made in code refusing every call: App::AddServerFilter puts it in front of the
// services.
class RefuseAll final : public ServerFilter {
 public:
  void Configure(config::ConfigReader&) override {}
  bool ObservesDone() const override { return false; }
  Status OnCall(ServerCall&) override {
    return Status(StatusCode::PERMISSION_DENIED, "refused by the app's filter");
  }
};

TEST(AppTest, AServerFilterAddedInCodeRunsInFrontOfTheServices) {
  demo::EchoServiceImpl echo;
  App app("echo", Parse("server: {listen: 127.0.0.1:0, drain_delay_ms: 0}\n"));
  app.AddService(&echo);
  app.AddServerFilter("refuse_all", std::make_shared<RefuseAll>());
  ASSERT_TRUE(app.Start().ok());
  ClientOptions options;
  options.target = "127.0.0.1:" + std::to_string(app.port());
  std::shared_ptr<Channel> channel;
  ASSERT_TRUE(NewChannel(options, &channel).ok());
  demo::EchoServiceProxy proxy(channel);
  EXPECT_EQ(proxy.Echo(EchoOf("hi")).status(),
            Status(StatusCode::PERMISSION_DENIED, "refused by the app's filter"));
  app.Stop();
}

TEST(AppTest, NamedClientsReachTheirOwnTargets) {
  EchoProvider first;
  EchoProvider second;
  App app("caller", Parse("clients:\n  first: {target: " + first.address() +
                          "}\n  second: {target: " + second.address() + "}\n"));
  auto a = app.Client<demo::EchoServiceProxy>("first");
  auto b = app.Client<demo::EchoServiceProxy>("second");
  ASSERT_TRUE(a.Echo(EchoOf("a")).ok());
  ASSERT_TRUE(b.Echo(EchoOf("b")).ok());
  EXPECT_EQ(app.ClientChannel("first"), app.ClientChannel("first")) << "built once, shared";
  EXPECT_NE(app.ClientChannel("first"), app.ClientChannel("second"));
  first.app().Stop();
  // Only `first` is gone: the other client still has its provider.
  EXPECT_FALSE(a.Echo(EchoOf("a")).ok());
  EXPECT_TRUE(b.Echo(EchoOf("b")).ok());
}

TEST(AppTest, AnUnknownClientNameFailsTheAppNamingIt) {
  App app("caller",
          Parse("server: {listen: 127.0.0.1:0}\nclients:\n  echo: {target: 127.0.0.1:1}\n"));
  auto proxy = app.Client<demo::EchoServiceProxy>("ehco");
  const Result<demo::EchoResponse> reply = proxy.Echo(EchoOf("x"));
  EXPECT_EQ(reply.status().code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(reply.status().message().find("app.yaml: clients.ehco: no such client"),
            std::string::npos)
      << reply.status();
  EXPECT_FALSE(app.ok());
  EXPECT_EQ(app.Start().code(), StatusCode::INVALID_ARGUMENT) << "refuses to start";
  EXPECT_EQ(app.Fail(app.status()), 2) << "a config mistake exits 2";
}

TEST(AppTest, ServiceSectionErrorsBecomeTheAppsAndNameTheLine) {
  App app("provider", Parse("server: {listen: 127.0.0.1:0}\nservice:\n  limit: lots\n"));
  int64_t limit = 0;
  app.ReadServiceConfig(
      [&](config::ConfigReader& service) { service.Integer("limit", 1, 10, &limit); });
  EXPECT_EQ(app.status().message(),
            "app.yaml:3: service.limit: expected an integer from 1 to 10, got 'lots'");
  EXPECT_FALSE(app.Start().ok());
}

// What a downstream provider saw of the calls made to it.
class ScopeRecorder final : public demo::EchoServiceBase {
 public:
  struct Seen {
    std::string trace_id;
    std::chrono::steady_clock::duration left;  // of the call's deadline, when it arrived
  };

  Status Echo(ServerContext& context, const demo::EchoRequest& request,
              demo::EchoResponse* response) override {
    std::lock_guard lock(mu_);
    seen_.push_back({context.trace_id(), context.has_deadline()
                                             ? context.deadline() - std::chrono::steady_clock::now()
                                             : std::chrono::steady_clock::duration::max()});
    response->set_payload(request.payload());
    return Status::Ok();
  }
  std::vector<Seen> seen() {
    std::lock_guard lock(mu_);
    return seen_;
  }

 private:
  std::mutex mu_;
  std::vector<Seen> seen_;
};

// Answers asynchronously after two downstream calls, the second made from the first one's
// completion on an IO thread: neither passes a deadline or a trace id by hand.
class Relay final : public demo::EchoServiceBase {
 public:
  explicit Relay(App& app) : downstream_(app.Client<demo::EchoServiceProxy>("downstream")) {}

  void EchoAsync(ServerContext&, const demo::EchoRequest& request, demo::EchoResponse* response,
                 ServerDone done) override {
    auto shared_done = std::make_shared<ServerDone>(std::move(done));
    downstream_.EchoWithCallback(
        request, [this, request, response, shared_done](Result<demo::EchoResponse> first) {
          if (!first.ok()) return (*shared_done)(first.status());
          downstream_.EchoWithCallback(request,
                                       [response, shared_done](Result<demo::EchoResponse> second) {
                                         if (second.ok())
                                           response->set_payload(second->payload() + " relayed");
                                         (*shared_done)(second.status());
                                       });
        });
  }

 private:
  demo::EchoServiceProxy downstream_;
};

TEST(AppTest, DownstreamCallsInheritTheDeadlineAndTraceOfTheCallBeingServed) {
  ScopeRecorder recorder;
  App downstream("downstream", Parse("server: {listen: 127.0.0.1:0, drain_delay_ms: 0}\n"));
  downstream.AddService(&recorder);
  ASSERT_TRUE(downstream.Start().ok());
  // The relay's client would wait 60 s of its own: the served call's deadline must win.
  App relay_app("relay", Parse("server: {listen: 127.0.0.1:0, drain_delay_ms: 0}\n"
                               "clients:\n  downstream: {target: 127.0.0.1:" +
                               std::to_string(downstream.port()) + ", timeout_ms: 60000}\n"));
  Relay relay(relay_app);
  relay_app.AddService(&relay);
  ASSERT_TRUE(relay_app.Start().ok());

  ClientOptions options;
  options.target = "127.0.0.1:" + std::to_string(relay_app.port());
  std::shared_ptr<Channel> channel;
  ASSERT_TRUE(NewChannel(options, &channel).ok());
  demo::EchoServiceProxy proxy(channel);
  CallOptions call;
  call.timeout = 3s;
  call.trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
  Result<demo::EchoResponse> reply = proxy.Echo(EchoOf("hop"), call);
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(reply->payload(), "hop relayed");

  const std::vector<ScopeRecorder::Seen> seen = recorder.seen();
  ASSERT_EQ(seen.size(), 2u);
  for (const ScopeRecorder::Seen& s : seen) {
    EXPECT_EQ(s.trace_id, "4bf92f3577b34da6a3ce929d0e0e4736");
    EXPECT_LE(s.left, std::chrono::steady_clock::duration(3s)) << "never more than the caller's";
    EXPECT_GT(s.left, std::chrono::steady_clock::duration(0s));
  }
}

TEST(AppTest, ACallWhoseServedCallHasNoTimeLeftIsNotSent) {
  ScopeRecorder recorder;
  EchoProvider unused;
  App app("caller", Parse("clients:\n  echo: {target: " + unused.address() + "}\n"));
  auto proxy = app.Client<demo::EchoServiceProxy>("echo");
  CallScope expired{.deadline = std::chrono::steady_clock::now() - 1ms, .trace_id = "t"};
  const ScopedCallScope scope(&expired);
  EXPECT_EQ(proxy.Echo(EchoOf("late")).status().code(), StatusCode::DEADLINE_EXCEEDED);
}

}  // namespace
}  // namespace ferry::app_test
