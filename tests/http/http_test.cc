// HTTP/1.1 on the server's port, through raw sockets that send exactly the bytes a test gives:
// the JSON gateway, routes, keep-alive and pipelining, limits and timeouts, and binary clients
// on the same port all the while.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "echo.ferry.h"
#include "ferry/framework/channel.h"
#include "ferry/framework/config.h"
#include "ferry/framework/server.h"
#include "ferry/plugins/auth_token.h"
#include "ferry/plugins/user_token.h"
#include "log_capture.h"
#include "raw_http_client.h"
#include "service/echo_service.h"

namespace ferry::http_test {
namespace {

using namespace std::chrono_literals;

// The echo service with routes of its own, as a service declares them.
class RoutedEcho final : public demo::EchoServiceBase {
 public:
  Status Echo(ServerContext& context, const demo::EchoRequest& request,
              demo::EchoResponse* response) override {
    {
      std::lock_guard lock(mu_);
      last_user_ = context.verified_user();
      last_attachments_ = context.attachments();
    }
    return echo_.Echo(context, request, response);
  }
  // ServerContext::verified_user() and attachments() of the last Echo served.
  std::string last_user() const {
    std::lock_guard lock(mu_);
    return last_user_;
  }
  Attachments last_attachments() const {
    std::lock_guard lock(mu_);
    return last_attachments_;
  }
  Status Delay(ServerContext& context, const demo::DelayRequest& request,
               demo::EchoResponse* response) override {
    return echo_.Delay(context, request, response);
  }

  std::vector<HttpRoute> http_routes() override {
    return {
        {.method = "GET",
         .pattern = "/links/{code}",
         .handler =
             [](const HttpRequest& request, HttpReply reply) {
               HttpResponse response;
               response.status = 302;
               response.Set("Location",
                            "https://example.com/" + std::string(request.Param("code")));
               response.Set("Cache-Control", "no-store");
               response.body = "see " + std::string(request.Param("code"));
               reply(std::move(response));
             }},
        {.method = "GET",
         .pattern = "/links/top",
         .handler = [](const HttpRequest&,
                       HttpReply reply) { reply({.status = 200, .body = "top"}); },
         .on_io_thread = true},
        {.method = "GET",
         .pattern = "/later/{x}",
         .handler =
             [](const HttpRequest& request, HttpReply reply) {
               std::thread([body = std::string(request.Param("x")),
                            reply = std::move(reply)]() mutable {
                 reply({.status = 200, .body = body});
               }).detach();
             }},
        // An answer that is not valid HTTP: a header with CR and LF in its value, a header
        // name with LF, or a status of four digits.
        {.method = "GET",
         .pattern = "/split/{how}",
         .handler =
             [](const HttpRequest& request, HttpReply reply) {
               HttpResponse response;
               if (request.Param("how") == "value") {
                 response.Set("X-Echo", "a\r\nInjected: yes");
               } else if (request.Param("how") == "name") {
                 response.Set("X-Echo\nInjected", "yes");
               } else {
                 response.status = 1000;
               }
               response.body = "split";
               reply(std::move(response));
             }},
        {.method = "GET",
         .pattern = "/boom",
         .handler = [](const HttpRequest&, HttpReply) { throw std::runtime_error("kaboom"); }},
        // Keys starting "hot" are answered from the IO thread, others by the handler.
        {.method = "GET",
         .pattern = "/cached/{key}",
         .handler =
             [this](const HttpRequest& request, HttpReply reply) {
               Saw(&pool_threads_);
               reply({.status = 200, .body = "pool " + std::string(request.Param("key"))});
             },
         .answer_on_io_thread = [this](const HttpRequest& request) -> std::optional<HttpResponse> {
           Saw(&io_threads_);
           if (!request.Param("key").starts_with("hot")) return std::nullopt;
           return HttpResponse{.status = 200, .body = "io " + std::string(request.Param("key"))};
         }},
    };
  }
  // The threads /cached/{key} ran on: its IO-thread answer and its handler, once a call each.
  std::vector<std::thread::id> io_threads() const {
    std::lock_guard lock(mu_);
    return io_threads_;
  }
  std::vector<std::thread::id> pool_threads() const {
    std::lock_guard lock(mu_);
    return pool_threads_;
  }

 private:
  demo::EchoServiceImpl echo_;
  void Saw(std::vector<std::thread::id>* threads) {
    std::lock_guard lock(mu_);
    threads->push_back(std::this_thread::get_id());
  }

  mutable std::mutex mu_;
  std::string last_user_;
  Attachments last_attachments_;
  std::vector<std::thread::id> io_threads_;
  std::vector<std::thread::id> pool_threads_;
};

class HttpTest : public ::testing::Test {
 protected:
  // `added`, when given, runs after the configured filters.
  void Start(const std::string& yaml = "", std::shared_ptr<ServerFilter> added = nullptr) {
    Config config;
    const Status parsed =
        ParseConfig("server:\n  listen: 127.0.0.1:0\n" + yaml, "http.yaml", &config);
    ASSERT_TRUE(parsed.ok()) << parsed;
    server_.emplace(config.server);
    ASSERT_TRUE(server_->AddService(&echo_).ok());
    if (added) {
      ASSERT_TRUE(server_->AddFilter("recording", std::move(added)).ok());
    }
    HttpRoute admin{.method = "GET",
                    .pattern = "/health",
                    .handler = [](const HttpRequest&,
                                  HttpReply reply) { reply({.status = 200, .body = "ok"}); },
                    .admin = true};
    ASSERT_TRUE(server_->AddHttpRoute(std::move(admin)).ok());
    const Status started = server_->Start();
    ASSERT_TRUE(started.ok()) << started;
  }
  uint16_t port() const { return server_->port(); }

  // A binary call on the same port: it must keep working whatever HTTP clients do.
  void ExpectBinaryEchoWorks() {
    ClientOptions options;
    options.target = "127.0.0.1:" + std::to_string(port());
    std::shared_ptr<Channel> channel;
    ASSERT_TRUE(NewChannel(options, &channel).ok());
    demo::EchoServiceProxy proxy(channel);
    demo::EchoRequest request;
    request.set_payload("binary");
    Result<demo::EchoResponse> reply = proxy.Echo(request);
    ASSERT_TRUE(reply.ok()) << reply.status();
    EXPECT_EQ(reply->payload(), "binary");
  }

  RoutedEcho echo_;
  std::optional<Server> server_;
};

TEST_F(HttpTest, TheGatewayCallsTheMethodWithItsJsonMapping) {
  Start();
  RawHttpClient client(port());
  ASSERT_TRUE(client.Send(Request("POST", "/ferry.demo.EchoService/Echo", R"({"payload":"aGk="})",
                                  "Content-Type: application/json\r\n")));
  auto reply = client.Read();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 200);
  EXPECT_EQ(reply->headers["content-type"], "application/json");
  EXPECT_EQ(reply->body, R"({"payload":"aGk="})");
  ExpectBinaryEchoWorks();
}

TEST_F(HttpTest, UnknownMethodsServicesAndBadBodiesAreNamed) {
  Start();
  RawHttpClient client(port());
  ASSERT_TRUE(client.Send(Request("POST", "/ferry.demo.EchoService/Nope", "{}")));
  auto unknown_method = client.Read();
  ASSERT_TRUE(unknown_method);
  EXPECT_EQ(unknown_method->status, 404);
  EXPECT_NE(unknown_method->body.find("unknown method 'Nope' of service 'ferry.demo.EchoService'"),
            std::string::npos)
      << unknown_method->body;

  ASSERT_TRUE(client.Send(Request("POST", "/ferry.demo.Nothing/Echo", "{}")));
  auto unknown_service = client.Read();
  ASSERT_TRUE(unknown_service);
  EXPECT_EQ(unknown_service->status, 404);
  EXPECT_NE(unknown_service->body.find("unknown service 'ferry.demo.Nothing'"), std::string::npos)
      << unknown_service->body;

  ASSERT_TRUE(client.Send(Request("POST", "/ferry.demo.EchoService/Echo", R"({"payload":5})")));
  auto bad_field = client.Read();
  ASSERT_TRUE(bad_field);
  EXPECT_EQ(bad_field->status, 400);
  EXPECT_NE(bad_field->body.find("\"code\":\"INVALID_ARGUMENT\""), std::string::npos);
  EXPECT_NE(bad_field->body.find("payload"), std::string::npos) << bad_field->body;

  ASSERT_TRUE(client.Send(Request("POST", "/ferry.demo.EchoService/Echo", R"({"paylod":"x"})")));
  auto unknown_field = client.Read();
  ASSERT_TRUE(unknown_field);
  EXPECT_EQ(unknown_field->status, 400);
  EXPECT_NE(unknown_field->body.find("paylod"), std::string::npos) << unknown_field->body;

  ASSERT_TRUE(client.Send(Request("POST", "/ferry.demo.EchoService/Echo", "not json")));
  auto not_json = client.Read();
  ASSERT_TRUE(not_json);
  EXPECT_EQ(not_json->status, 400);
}

TEST_F(HttpTest, StatusesMapToHttpStatusesWithAJsonErrorBody) {
  Start();
  RawHttpClient client(port());
  const auto call_failing_with = [&](StatusCode code) {
    EXPECT_TRUE(client.Send(Request(
        "POST", "/ferry.demo.EchoService/Delay",
        R"({"failCode":)" + std::to_string(static_cast<int>(code)) + R"(,"failMessage":"why"})")));
    return client.Read();
  };
  const struct {
    StatusCode code;
    int http;
    bool retry_after;
  } cases[] = {
      {StatusCode::INVALID_ARGUMENT, 400, false}, {StatusCode::NOT_FOUND, 404, false},
      {StatusCode::UNAUTHENTICATED, 401, false},  {StatusCode::PERMISSION_DENIED, 403, false},
      {StatusCode::ALREADY_EXISTS, 409, false},   {StatusCode::RESOURCE_EXHAUSTED, 429, true},
      {StatusCode::UNAVAILABLE, 503, true},       {StatusCode::INTERNAL, 500, false},
      {StatusCode::UNIMPLEMENTED, 501, false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(StatusCodeName(c.code)));
    auto reply = call_failing_with(c.code);
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->status, c.http);
    EXPECT_EQ(reply->headers.count("retry-after"), c.retry_after ? 1u : 0u);
    EXPECT_EQ(reply->body,
              R"({"code":")" + std::string(StatusCodeName(c.code)) + R"(","message":"why"})");
  }
  // A handler cannot say its call never started (OVERLOADED is the server's, before it runs).
  auto overloaded = call_failing_with(StatusCode::OVERLOADED);
  ASSERT_TRUE(overloaded);
  EXPECT_EQ(overloaded->status, 503);
  EXPECT_EQ(overloaded->body,
            R"({"code":"UNAVAILABLE","message":"the handler answered OVERLOADED: why"})");
}

TEST_F(HttpTest, ADeadlineInAHeaderIsTheCallsDeadline) {
  Start();
  RawHttpClient client(port());
  ASSERT_TRUE(client.Send(Request("POST", "/ferry.demo.EchoService/Delay", R"({"sleepMs":5000})",
                                  "X-Ferry-Timeout-Ms: 50\r\n")));
  auto reply = client.Read(3s);
  ASSERT_TRUE(reply) << "answered at the deadline, not after the 5 s the handler would take";
  EXPECT_EQ(reply->status, 504);
  ASSERT_TRUE(client.Send(
      Request("POST", "/ferry.demo.EchoService/Echo", "{}", "X-Ferry-Timeout-Ms: soon\r\n")));
  auto bad = client.Read();
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_NE(bad->body.find("X-Ferry-Timeout-Ms"), std::string::npos) << bad->body;
}

TEST_F(HttpTest, ATimeoutBeyondAYearIsRefusedEvenWhereMillisecondsTimesAThousandWraps) {
  Start();
  RawHttpClient client(port());
  // 18446744073709552 * 1000 is 384 modulo 2^64: a check that multiplies lets it through.
  for (const char* timeout : {"31536000001", "18446744073709552", "18446744073709551615"}) {
    SCOPED_TRACE(timeout);
    ASSERT_TRUE(client.Send(Request("POST", "/ferry.demo.EchoService/Echo", "{}",
                                    "X-Ferry-Timeout-Ms: " + std::string(timeout) + "\r\n")));
    auto reply = client.Read();
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->status, 400);
    EXPECT_NE(reply->body.find("X-Ferry-Timeout-Ms"), std::string::npos) << reply->body;
  }
  ASSERT_TRUE(client.Send(Request("POST", "/ferry.demo.EchoService/Echo", "{}",
                                  "X-Ferry-Timeout-Ms: 31536000000\r\n")));
  auto year = client.Read();
  ASSERT_TRUE(year);
  EXPECT_EQ(year->status, 200) << year->body;
}

TEST_F(HttpTest, KeepAliveAndPipelinedRequestsAreAnsweredInOrder) {
  Start();
  RawHttpClient client(port());
  std::string pipelined;
  for (int i = 0; i < 20; ++i) {
    // Slow pool calls and inline ones interleaved: answers still come back in request order.
    pipelined += i % 2 == 0 ? Request("POST", "/ferry.demo.EchoService/Delay",
                                      R"({"sleepMs":2,"payload":")" +
                                          std::string(i % 4 == 0 ? "YQ==" : "Yg==") + R"("})")
                            : Request("GET", "/links/code" + std::to_string(i));
  }
  ASSERT_TRUE(client.Send(pipelined));
  for (int i = 0; i < 20; ++i) {
    auto reply = client.Read();
    ASSERT_TRUE(reply) << "response " << i;
    if (i % 2 == 0) {
      EXPECT_EQ(reply->status, 200);
      EXPECT_EQ(reply->body,
                std::string(R"({"payload":")") + (i % 4 == 0 ? "YQ==" : "Yg==") + R"("})");
    } else {
      EXPECT_EQ(reply->status, 302);
      EXPECT_EQ(reply->headers["location"], "https://example.com/code" + std::to_string(i));
    }
    EXPECT_TRUE(reply->keep_alive);
  }
}

TEST_F(HttpTest, RoutesPreferLiteralSegmentsAndAnswerHeadWithoutABody) {
  Start();
  RawHttpClient client(port());
  ASSERT_TRUE(client.Send(Request("GET", "/links/top")));
  auto top = client.Read();
  ASSERT_TRUE(top);
  EXPECT_EQ(top->body, "top");
  ASSERT_TRUE(client.Send(Request("HEAD", "/links/abc")));
  auto head = client.Read(RawHttpClient::kWait, /*to_head=*/true);
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 302);
  EXPECT_EQ(head->headers["cache-control"], "no-store");
  EXPECT_EQ(head->headers["content-length"], "7") << "the length GET would send";
  EXPECT_EQ(head->body, "");
  ASSERT_TRUE(client.Send(Request("POST", "/links/abc", "x")));
  auto wrong_method = client.Read();
  ASSERT_TRUE(wrong_method);
  EXPECT_EQ(wrong_method->status, 405);
  EXPECT_EQ(wrong_method->headers["allow"], "GET");
  ASSERT_TRUE(client.Send(Request("GET", "/later/from-another-thread")));
  auto later = client.Read();
  ASSERT_TRUE(later);
  EXPECT_EQ(later->body, "from-another-thread");
  ASSERT_TRUE(client.Send(Request("GET", "/boom")));
  auto boom = client.Read();
  ASSERT_TRUE(boom);
  EXPECT_EQ(boom->status, 500);
}

// Beast keeps a header field's length in 16 bits: a field past 64 KiB under a larger
// max_header_bytes is refused as too large, not thrown out of the parser.
TEST_F(HttpTest, AHeaderFieldPastWhatOneFieldHoldsIs431UnderALargerHeaderLimit) {
  Start("  http: {max_header_bytes: 262144}\n");
  for (const char* field : {"X-Big: ", "X-"}) {
    RawHttpClient client(port());
    const std::string huge(70000, 'a');
    ASSERT_TRUE(client.Send("GET /links/x HTTP/1.1\r\nHost: x\r\n" + std::string(field) + huge +
                            (std::string_view(field) == "X-" ? ": v" : "") + "\r\n\r\n"));
    auto reply = client.Read();
    ASSERT_TRUE(reply) << field;
    EXPECT_EQ(reply->status, 431) << field;
    EXPECT_TRUE(client.WaitForClose());
  }
  RawHttpClient after(port());
  ASSERT_TRUE(after.Send(Request("GET", "/links/x")));
  auto reply = after.Read();
  ASSERT_TRUE(reply) << "the server is still up";
}

TEST_F(HttpTest, MalformedOversizedAndSlowRequestsGetTheirStatusAndTheConnectionCloses) {
  Start("  http: {max_header_bytes: 2048, max_body_bytes: 1024, request_timeout_ms: 300}\n");
  {
    RawHttpClient client(port());
    ASSERT_TRUE(client.Send("GET /links/x HTTP/1.1\r\nHost: x\r\nContent-Length: nope\r\n\r\n"));
    auto reply = client.Read();
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->status, 400);
    EXPECT_FALSE(reply->keep_alive);
    EXPECT_TRUE(client.WaitForClose());
  }
  {
    RawHttpClient client(port());
    ASSERT_TRUE(client.Send("GET /links/x HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(4096, 'a') +
                            "\r\n\r\n"));
    auto reply = client.Read();
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->status, 431);
    EXPECT_TRUE(client.WaitForClose());
  }
  {
    RawHttpClient client(port());
    ASSERT_TRUE(
        client.Send(Request("POST", "/ferry.demo.EchoService/Echo", std::string(2048, ' '))));
    auto reply = client.Read();
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->status, 413);
    EXPECT_TRUE(client.WaitForClose());
  }
  {
    // Half a request, then nothing: answered 408 once the request timeout passes.
    RawHttpClient client(port());
    ASSERT_TRUE(client.Send("GET /links/x HTTP/1.1\r\nHost: x\r\n"));
    auto reply = client.Read();
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->status, 408);
    EXPECT_TRUE(client.WaitForClose());
  }
  ExpectBinaryEchoWorks();
}

// RFC 9112 §6.3: a Transfer-Encoding whose last coding is not chunked leaves the request's
// length unknown. Read as a request without a body, what follows it would be served as the next
// request: it is one 400 and the connection closes. A coding but chunked is not decoded: 501.
TEST_F(HttpTest, ATransferEncodingThatDoesNotEndInChunkedIsOne400AndTheConnectionCloses) {
  Start();
  const struct {
    const char* codings;
    int status;
  } cases[] = {{"gzip", 400}, {"chunked, gzip", 400}, {"gzip, chunked", 501}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.codings);
    RawHttpClient client(port());
    ASSERT_TRUE(
        client.Send("POST /ferry.demo.EchoService/Echo HTTP/1.1\r\nHost: x\r\n"
                    "Content-Type: application/json\r\nTransfer-Encoding: " +
                    std::string(c.codings) +
                    "\r\n\r\n2\r\n{}\r\n0\r\n\r\nGET /links/top HTTP/1.1\r\nHost: x\r\n\r\n"));
    auto reply = client.Read();
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->status, c.status) << reply->body;
    EXPECT_NE(reply->body.find("Transfer-Encoding"), std::string::npos) << reply->body;
    EXPECT_FALSE(reply->keep_alive);
    EXPECT_FALSE(client.Read()) << "one answer, then the connection closed";
  }
  // Chunked alone is read as such.
  RawHttpClient client(port());
  ASSERT_TRUE(client.Send(
      "POST /ferry.demo.EchoService/Echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
      "Transfer-Encoding: chunked\r\n\r\n12\r\n{\"payload\":\"aGk=\"}\r\n0\r\n\r\n"));
  auto reply = client.Read();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 200) << reply->body;
  EXPECT_EQ(reply->body, R"({"payload":"aGk="})");
}

// A route's answer that would not be valid HTTP (a header that would split it in two) is
// answered 500 and logged; the connection goes on.
TEST_F(HttpTest, AnAnswerWithCrOrLfInAHeaderIs500AndLogged) {
  testsupport::LogCapture log;
  Start();
  RawHttpClient client(port());
  for (const char* how : {"value", "name", "status"}) {
    SCOPED_TRACE(how);
    ASSERT_TRUE(client.Send(Request("GET", std::string("/split/") + how)));
    auto reply = client.Read();
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->status, 500);
    EXPECT_EQ(reply->headers.count("injected"), 0u);
    EXPECT_EQ(reply->headers.count("x-echo"), 0u);
    EXPECT_NE(reply->body.find("not valid HTTP"), std::string::npos) << reply->body;
    EXPECT_TRUE(reply->keep_alive);
  }
  EXPECT_TRUE(
      log.WaitFor("GET /split/value with 500 instead of the route's answer: header X-Echo "
                  "has CR, LF or NUL in its value",
                  5s));
  ASSERT_TRUE(client.Send(Request("GET", "/links/top")));
  auto after = client.Read();
  ASSERT_TRUE(after);
  EXPECT_EQ(after->body, "top");
}

// A browser sends a cross-site POST without asking first only with text/plain, a form's types
// or none: the gateway takes JSON alone, so such a POST never reaches a method.
TEST_F(HttpTest, TheGatewayRefusesABodyThatIsNotJsonWith415) {
  Start();
  RawHttpClient client(port());
  for (const char* type : {"text/plain", "application/x-www-form-urlencoded",
                           "multipart/form-data; boundary=x", "application/jsonx", ""}) {
    SCOPED_TRACE(type);
    ASSERT_TRUE(
        client.Send(Request("POST", "/ferry.demo.EchoService/Echo", R"({"payload":"aGk="})",
                            *type == '\0' ? std::string("Content-Type:\r\n")
                                          : "Content-Type: " + std::string(type) + "\r\n")));
    auto reply = client.Read();
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->status, 415);
    EXPECT_NE(reply->body.find("application/json"), std::string::npos) << reply->body;
  }
  for (const char* type : {"application/json", "application/json; charset=utf-8",
                           "Application/JSON", "application/vnd.ferry+json"}) {
    SCOPED_TRACE(type);
    ASSERT_TRUE(client.Send(Request("POST", "/ferry.demo.EchoService/Echo", R"({"payload":"aGk="})",
                                    "Content-Type: " + std::string(type) + "\r\n")));
    auto reply = client.Read();
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->status, 200) << reply->body;
    EXPECT_EQ(reply->body, R"({"payload":"aGk="})");
  }
  // Without one at all, as curl -XPOST sends a request without a body.
  ASSERT_TRUE(
      client.Send("POST /ferry.demo.EchoService/Echo HTTP/1.1\r\nHost: x\r\n"
                  "Content-Length: 0\r\n\r\n"));
  auto none = client.Read();
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 415);
}

// What a filter saw of the calls that reached it: "<service>/<method> <status code>" each, once
// they completed.
class CompletionLog final : public ServerFilter {
 public:
  void Configure(config::ConfigReader&) override {}
  Status OnCall(ServerCall&) override { return Status::Ok(); }
  void OnDone(const ServerCall& call, const Status& status, std::chrono::nanoseconds) override {
    std::lock_guard lock(mu_);
    seen_.push_back(std::string(call.context.service()) + "/" + std::string(call.context.method()) +
                    " " + std::string(StatusCodeName(status.code())));
  }
  std::vector<std::string> seen() const {
    std::lock_guard lock(mu_);
    return seen_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> seen_;
};

// A route is a method "GET /links/{code}" of service "http" to the server's filters: a rate
// limit and an auth filter's exempt list name it so, a refusal answers as the gateway's do, and
// a filter sees the route's answer as a status. Admin pages stay out of the chain.
TEST_F(HttpTest, RoutesRunThroughTheServerFiltersAsMethodsOfServiceHttp) {
  auto log = std::make_shared<CompletionLog>();
  Start(
      "  filters:\n"
      "    - {name: auth, secret: s3cr3t, exempt: [\"http/GET /links/{code}\"]}\n"
      "    - name: ratelimit\n"
      "      methods: {\"http/GET /links/{code}\": {per_peer: {rate: 0.001, burst: 2}}}\n",
      log);
  RawHttpClient client(port());
  for (const char* code : {"a", "b", "c"}) {
    ASSERT_TRUE(client.Send(Request("GET", std::string("/links/") + code)));
  }
  auto a = client.Read();
  auto b = client.Read();
  auto c = client.Read();
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(a->status, 302);
  EXPECT_EQ(b->status, 302);
  EXPECT_EQ(c->status, 429) << c->body;
  EXPECT_EQ(c->headers.count("retry-after"), 1u);
  EXPECT_NE(c->body.find("RESOURCE_EXHAUSTED"), std::string::npos) << c->body;
  // Another route is not exempt: unsigned, auth refuses it before the handler runs.
  ASSERT_TRUE(client.Send(Request("GET", "/links/top")));
  auto top = client.Read();
  ASSERT_TRUE(top);
  EXPECT_EQ(top->status, 401) << top->body;
  ASSERT_TRUE(client.Send(Request("GET", "/health")));
  auto health = client.Read();
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  // The last filter saw the two redirects (a 302 is OK); the refused calls never reached it.
  EXPECT_EQ(log->seen(),
            (std::vector<std::string>{"http/GET /links/{code} OK", "http/GET /links/{code} OK"}));
}

// answer_on_io_thread answers what it can where the request was read, and passes the rest to
// the handler on the business pool; either way the filters see one call.
TEST_F(HttpTest, ARouteAnswersFromTheIoThreadWhenItCanAndOtherwiseOnThePool) {
  auto log = std::make_shared<CompletionLog>();
  Start("", log);
  RawHttpClient client(port());
  ASSERT_TRUE(client.Send(Request("GET", "/cached/hot1")));
  ASSERT_TRUE(client.Send(Request("GET", "/cached/cold1")));
  auto hot = client.Read();
  auto cold = client.Read();
  ASSERT_TRUE(hot && cold);
  EXPECT_EQ(hot->body, "io hot1");
  EXPECT_EQ(cold->body, "pool cold1");
  const std::vector<std::thread::id> io = echo_.io_threads();
  const std::vector<std::thread::id> pool = echo_.pool_threads();
  ASSERT_EQ(io.size(), 2u);    // both were tried on the IO thread first
  ASSERT_EQ(pool.size(), 1u);  // only the cold one reached the handler
  EXPECT_EQ(io[0], io[1]);     // one connection, one IO thread
  EXPECT_NE(pool[0], io[0]);
  EXPECT_EQ(log->seen(),
            (std::vector<std::string>{"http/GET /cached/{key} OK", "http/GET /cached/{key} OK"}));
}

TEST_F(HttpTest, AnAuthFilterReadsTheBearerTokenAndRateLimitsAnswer429) {
  Start(
      "  filters:\n"
      "    - {name: auth, secret: s3cr3t}\n"
      "    - name: ratelimit\n"
      "      methods: {\"ferry.demo.EchoService/Delay\": {rate: 0.001, burst: 1}}\n");
  RawHttpClient client(port());
  ASSERT_TRUE(client.Send(Request("POST", "/ferry.demo.EchoService/Echo", "{}")));
  auto missing = client.Read();
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 401);
  // A gateway call's token signs its JSON body exactly as sent.
  const auto token_for = [](std::string_view method, std::string_view body) {
    const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
    // As the gateway hands the call to the filters: a JSON body, uncompressed, answered.
    return plugins::MakeAuthToken("default", "s3cr3t",
                                  plugins::AuthRequest{.service = "ferry.demo.EchoService",
                                                       .method = method,
                                                       .body = body,
                                                       .framing = {.serializer = 1}},
                                  "", now_ms, plugins::NewAuthNonce());
  };
  const std::string echo_token = token_for("Echo", "{}");
  ASSERT_TRUE(client.Send(Request("POST", "/ferry.demo.EchoService/Echo", "{}",
                                  "Authorization: Bearer " + echo_token + "\r\n")));
  auto allowed = client.Read();
  ASSERT_TRUE(allowed);
  EXPECT_EQ(allowed->status, 200) << allowed->body;
  // The same token again, or with another body, is refused.
  ASSERT_TRUE(client.Send(Request("POST", "/ferry.demo.EchoService/Echo", "{}",
                                  "Authorization: Bearer " + echo_token + "\r\n")));
  auto replayed = client.Read();
  ASSERT_TRUE(replayed);
  EXPECT_EQ(replayed->status, 401);
  EXPECT_NE(replayed->body.find("replayed token"), std::string::npos) << replayed->body;
  ASSERT_TRUE(client.Send(Request("POST", "/ferry.demo.EchoService/Echo", "{\"payload\":\"x\"}",
                                  "Authorization: Bearer " + token_for("Echo", "{}") + "\r\n")));
  auto other_body = client.Read();
  ASSERT_TRUE(other_body);
  EXPECT_EQ(other_body->status, 401);
  EXPECT_NE(other_body->body.find("invalid token signature"), std::string::npos)
      << other_body->body;
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(client.Send(Request("POST", "/ferry.demo.EchoService/Delay", "{}",
                                    "Authorization: Bearer " + token_for("Delay", "{}") + "\r\n")));
  }
  auto first = client.Read();
  auto second = client.Read();
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->status, 200);
  EXPECT_EQ(second->status, 429);
  EXPECT_EQ(second->headers.count("retry-after"), 1u);
}

TEST_F(HttpTest, AttachmentHeadersBecomeAttachmentsAndCarryAUserToken) {
  Start(
      "  filters:\n"
      "    - {name: auth, secret: s3cr3t}\n"
      "    - {name: user_token, secret: u5er}\n");
  const int64_t now_s = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  const std::string user_token =
      plugins::MakeUserToken("default", "u5er", "alice", now_s, now_s + 60);
  // The auth token signs the attachments the headers make, as they arrive (lower-cased names).
  const auto auth_token = [](const Attachments& attachments) {
    const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
    return plugins::MakeAuthToken("default", "s3cr3t",
                                  plugins::AuthRequest{.service = "ferry.demo.EchoService",
                                                       .method = "Echo",
                                                       .body = "{}",
                                                       .attachments = &attachments,
                                                       .framing = {.serializer = 1}},
                                  "", now_ms, plugins::NewAuthNonce());
  };
  RawHttpClient client(port());
  const Attachments none;
  ASSERT_TRUE(client.Send(Request("POST", "/ferry.demo.EchoService/Echo", "{}",
                                  "Authorization: Bearer " + auth_token(none) + "\r\n")));
  auto missing = client.Read();
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 401);
  EXPECT_NE(missing->body.find("missing user token"), std::string::npos) << missing->body;
  const Attachments sent{{"user-token", user_token}, {"tenant", "Blue"}};
  ASSERT_TRUE(client.Send(Request("POST", "/ferry.demo.EchoService/Echo", "{}",
                                  "Authorization: Bearer " + auth_token(sent) +
                                      "\r\nX-Ferry-Attachment-User-Token: " + user_token +
                                      "\r\nx-ferry-attachment-TENANT: Blue\r\n")));
  auto served = client.Read();
  ASSERT_TRUE(served);
  EXPECT_EQ(served->status, 200) << served->body;
  EXPECT_EQ(echo_.last_user(), "alice");
  EXPECT_EQ(echo_.last_attachments(), sent);
  // A forged user token is refused, however good the auth token.
  std::string forged = user_token;
  forged.replace(forged.find(":alice:"), 7, ":bob:");
  const Attachments forged_sent{{"user-token", forged}};
  ASSERT_TRUE(client.Send(Request("POST", "/ferry.demo.EchoService/Echo", "{}",
                                  "Authorization: Bearer " + auth_token(forged_sent) +
                                      "\r\nX-Ferry-Attachment-User-Token: " + forged + "\r\n")));
  auto refused = client.Read();
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 401);
  EXPECT_NE(refused->body.find("invalid user token signature"), std::string::npos) << refused->body;
}

TEST_F(HttpTest, AdminPagesMoveToTheirOwnListenerWhenOneIsSet) {
  Start("  http: {admin_listen: 127.0.0.1:0}\n");
  ASSERT_NE(server_->admin_port(), 0);
  RawHttpClient public_port(port());
  ASSERT_TRUE(public_port.Send(Request("GET", "/health")));
  auto hidden = public_port.Read();
  ASSERT_TRUE(hidden);
  EXPECT_EQ(hidden->status, 404);
  RawHttpClient admin_port(server_->admin_port());
  ASSERT_TRUE(admin_port.Send(Request("GET", "/health")));
  auto health = admin_port.Read();
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  EXPECT_EQ(health->body, "ok");
  // The admin listener serves the admin pages alone.
  ASSERT_TRUE(admin_port.Send(Request("GET", "/links/x")));
  auto route = admin_port.Read();
  ASSERT_TRUE(route);
  EXPECT_EQ(route->status, 404);
}

TEST(HttpRoutesTest, RoutesThatMatchTheSamePathsAreRefusedAtStart) {
  Server server(ServerOptions{});
  const auto answer = [](const HttpRequest&, HttpReply reply) { reply({}); };
  ASSERT_TRUE(server.AddHttpRoute({.method = "GET", .pattern = "/{code}", .handler = answer}).ok());
  ASSERT_TRUE(server.AddHttpRoute({.method = "GET", .pattern = "/{id}", .handler = answer}).ok());
  const Status status = server.Start();
  EXPECT_EQ(status.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.message().find("'GET /{code}' and 'GET /{id}' match the same paths"),
            std::string::npos)
      << status;

  Server malformed(ServerOptions{});
  ASSERT_TRUE(
      malformed.AddHttpRoute({.method = "GET", .pattern = "/a{b}", .handler = answer}).ok());
  EXPECT_EQ(malformed.Start().code(), StatusCode::INVALID_ARGUMENT);

  demo::EchoServiceImpl echo;
  Server gateway(ServerOptions{});
  ASSERT_TRUE(gateway.AddService(&echo).ok());
  ASSERT_TRUE(
      gateway
          .AddHttpRoute(
              {.method = "POST", .pattern = "/ferry.demo.EchoService/{m}", .handler = answer})
          .ok());
  const Status taken = gateway.Start();
  EXPECT_NE(taken.message().find("JSON gateway"), std::string::npos) << taken;
}

// An application's admin route is guarded as the App's pages are. Outside admin_networks it is
// not there: the request goes to whatever else matches it, as on a port without admin pages.
TEST(HttpAdminRoutesTest, AnAdminRouteIsTheAdminNetworksAloneAndAnswersItsOwnHostsAlone) {
  ServerOptions options;
  options.http.admin_networks = {"127.0.0.2/32"};
  Server server(options);
  ASSERT_TRUE(server
                  .AddHttpRoute({.method = "GET",
                                 .pattern = "/stats",
                                 .handler =
                                     [](const HttpRequest&, HttpReply reply) {
                                       reply({.status = 200, .body = "admin stats"});
                                     },
                                 .admin = true})
                  .ok());
  ASSERT_TRUE(server
                  .AddHttpRoute({.method = "GET",
                                 .pattern = "/{code}",
                                 .handler =
                                     [](const HttpRequest& request, HttpReply reply) {
                                       reply(
                                           {.status = 200,
                                            .body = "link " + std::string(request.Param("code"))});
                                     }})
                  .ok());
  ASSERT_TRUE(server.Start().ok());
  const auto get = [&](const char* from, std::string_view host) {
    std::optional<RawHttpClient> client;
    if (from == nullptr) {
      client.emplace(server.port());
    } else {
      client.emplace(server.port(), from);
    }
    EXPECT_TRUE(client->Send("GET /stats HTTP/1.1\r\nHost: " + std::string(host) + "\r\n\r\n"));
    return client->Read().value_or(RawResponse{});
  };
  EXPECT_EQ(get(nullptr, "localhost").body, "link stats");
  EXPECT_EQ(get("127.0.0.2", "localhost").body, "admin stats");
  EXPECT_EQ(get("127.0.0.2", "evil.example").status, 403);
  EXPECT_EQ(get(nullptr, "evil.example").body, "link stats") << "the public route checks no Host";
  server.Stop();
}

}  // namespace
}  // namespace ferry::http_test
