// W3C trace context from an HTTP request through an App's handler to the downstream call it
// makes with the App's client, and into the slow calls the status page lists.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "echo.ferry.h"
#include "ferry/framework/app.h"
#include "raw_http_client.h"
#include "service/echo_service.h"

namespace ferry::app_test {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;

Config Parse(const std::string& yaml) {
  Config config;
  const Status status = ParseConfig(yaml, "trace.yaml", &config);
  EXPECT_TRUE(status.ok()) << status;
  return config;
}

struct SeenContext {
  std::string trace_id;
  std::string span_id;
  std::string parent_span_id;
  bool sampled = false;
};

SeenContext SeenOf(const ServerContext& context) {
  return {std::string(context.trace_id()), std::string(context.span_id()),
          std::string(context.parent_span_id()), context.sampled()};
}

// Remembers the context of the last Echo it served.
class Recorder final : public demo::EchoServiceBase {
 public:
  Status Echo(ServerContext& context, const demo::EchoRequest& request,
              demo::EchoResponse* response) override {
    std::lock_guard lock(mu_);
    last_ = SeenOf(context);
    response->set_payload(request.payload());
    return Status::Ok();
  }
  SeenContext last() {
    std::lock_guard lock(mu_);
    return last_;
  }

 private:
  std::mutex mu_;
  SeenContext last_;
};

// Echo calls the downstream Echo through the App's client, passing nothing by hand; Delay is
// the echo service's own, for slow calls.
class Relay final : public demo::EchoServiceBase {
 public:
  explicit Relay(App& app) : downstream_(app.Client<demo::EchoServiceProxy>("downstream")) {}

  // Echo runs on the IO thread, so it must not block: it answers from the downstream call's
  // completion.
  void EchoAsync(ServerContext& context, const demo::EchoRequest& request,
                 demo::EchoResponse* response, ServerDone done) override {
    {
      std::lock_guard lock(mu_);
      last_ = SeenOf(context);
    }
    auto shared_done = std::make_shared<ServerDone>(std::move(done));
    downstream_.EchoWithCallback(request,
                                 [response, shared_done](Result<demo::EchoResponse> reply) {
                                   if (reply.ok()) *response = *reply;
                                   (*shared_done)(reply.status());
                                 });
  }
  Status Delay(ServerContext& context, const demo::DelayRequest& request,
               demo::EchoResponse* response) override {
    return echo_.Delay(context, request, response);
  }
  SeenContext last() {
    std::lock_guard lock(mu_);
    return last_;
  }

 private:
  demo::EchoServiceProxy downstream_;
  demo::EchoServiceImpl echo_;
  std::mutex mu_;
  SeenContext last_;
};

class TracePropagationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    downstream_app_.AddService(&recorder_);
    ASSERT_TRUE(downstream_app_.Start().ok());
    relay_app_.emplace("relay",
                       Parse("server: {listen: 127.0.0.1:0, drain_delay_ms: 0, slow_call_ms: 20}\n"
                             "clients:\n  downstream: {target: 127.0.0.1:" +
                             std::to_string(downstream_app_.port()) + "}\n"));
    relay_.emplace(*relay_app_);
    relay_app_->AddService(&*relay_);
    ASSERT_TRUE(relay_app_->Start().ok());
  }

  http_test::RawResponse Post(std::string_view path, std::string_view body,
                              std::string_view headers) {
    http_test::RawHttpClient client(relay_app_->port());
    EXPECT_TRUE(client.Send(http_test::Request("POST", path, body, headers)));
    return client.Read().value_or(http_test::RawResponse{});
  }

  Recorder recorder_;
  App downstream_app_{"downstream", Parse("server: {listen: 127.0.0.1:0, drain_delay_ms: 0}\n")};
  std::optional<App> relay_app_;
  std::optional<Relay> relay_;
};

constexpr std::string_view kTrace = "4bf92f3577b34da6a3ce929d0e0e4736";
constexpr std::string_view kCallerSpan = "00f067aa0ba902b7";

TEST_F(TracePropagationTest, TheHttpCallersSpanIsTheParentAndTheRelaysSpanTheDownstreamsParent) {
  const auto answer =
      Post("/ferry.demo.EchoService/Echo", "{}",
           "traceparent: 00-" + std::string(kTrace) + "-" + std::string(kCallerSpan) + "-01\r\n");
  ASSERT_EQ(answer.status, 200) << answer.body;
  const SeenContext relay = relay_->last();
  const SeenContext downstream = recorder_.last();
  EXPECT_EQ(relay.trace_id, kTrace);
  EXPECT_EQ(relay.parent_span_id, kCallerSpan);
  EXPECT_THAT(relay.span_id, MatchesRegex("[0-9a-f]{16}"));
  EXPECT_NE(relay.span_id, kCallerSpan);
  EXPECT_TRUE(relay.sampled);
  EXPECT_EQ(downstream.trace_id, kTrace);
  EXPECT_EQ(downstream.parent_span_id, relay.span_id);
  EXPECT_THAT(downstream.span_id, MatchesRegex("[0-9a-f]{16}"));
  EXPECT_NE(downstream.span_id, relay.span_id);
  EXPECT_TRUE(downstream.sampled);
}

TEST_F(TracePropagationTest, AnUnsampledTraceStaysUnsampledDownstream) {
  ASSERT_EQ(
      Post("/ferry.demo.EchoService/Echo", "{}",
           "traceparent: 00-" + std::string(kTrace) + "-" + std::string(kCallerSpan) + "-00\r\n")
          .status,
      200);
  EXPECT_FALSE(relay_->last().sampled);
  EXPECT_FALSE(recorder_.last().sampled);
  EXPECT_EQ(recorder_.last().trace_id, kTrace);
}

TEST_F(TracePropagationTest, WithoutATraceparentTheCallStartsATrace) {
  ASSERT_EQ(Post("/ferry.demo.EchoService/Echo", "{}", "traceparent: garbage\r\n").status, 200);
  const SeenContext relay = relay_->last();
  EXPECT_THAT(relay.trace_id, MatchesRegex("[0-9a-f]{32}"));
  EXPECT_EQ(relay.parent_span_id, "");
  EXPECT_EQ(recorder_.last().trace_id, relay.trace_id);
  EXPECT_EQ(recorder_.last().parent_span_id, relay.span_id);
}

TEST_F(TracePropagationTest, SlowCallsAreListedWithTheirTrace) {
  const auto answer =
      Post("/ferry.demo.EchoService/Delay", R"({"sleepMs": 60})",
           "traceparent: 00-" + std::string(kTrace) + "-" + std::string(kCallerSpan) + "-01\r\n");
  ASSERT_EQ(answer.status, 200) << answer.body;
  // A fast call is not listed.
  ASSERT_EQ(Post("/ferry.demo.EchoService/Delay", "{}", "").status, 200);
  http_test::RawHttpClient client(relay_app_->port());
  ASSERT_TRUE(client.Send(http_test::Request("GET", "/status.json")));
  const auto status = client.Read();
  ASSERT_TRUE(status);
  EXPECT_THAT(status->body, HasSubstr("\"call\":\"ferry.demo.EchoService/Delay\""));
  EXPECT_THAT(status->body, HasSubstr("\"trace_id\":\"" + std::string(kTrace) + "\""));
  const size_t first = status->body.find("\"slow_calls\":[");
  ASSERT_NE(first, std::string::npos);
  const std::string slow = status->body.substr(first, status->body.find(']', first) - first);
  EXPECT_EQ(slow.find("Delay", slow.find("Delay") + 1), std::string::npos)
      << "only the slow call: " << slow;
}

}  // namespace
}  // namespace ferry::app_test
