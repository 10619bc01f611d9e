#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>

#include "filter_fixture.h"
#include "log_capture.h"
#include "recording_filters.h"

namespace ferry::plugins_test {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

class FilterChainTest : public FilterFixture {
 protected:
  void SetUp() override { ClearRecordedEvents(); }
};

TEST_F(FilterChainTest, FiltersWrapTheCallInConfiguredOrderOnBothSides) {
  StartServer("[{name: test_recorder, tag: s1}, {name: test_recorder, tag: s2}]");
  demo::EchoServiceProxy proxy =
      NewProxy("[{name: test_recorder, tag: c1}, {name: test_recorder, tag: c2}]");
  ASSERT_TRUE(proxy.Echo(EchoOf("x")).ok());
  EXPECT_THAT(RecordedEvents(),
              ElementsAre("client c1 call", "client c2 call", "server s1 call", "server s2 call",
                          "server s2 done OK", "server s1 done OK", "client c2 done OK",
                          "client c1 done OK"));
  EXPECT_EQ(service_.handled(), 1);
}

// Filters that ignore completions still see every call, in order, and may still reject it; the
// chains then neither time nor keep the call, so no OnDone runs.
TEST_F(FilterChainTest, FiltersThatIgnoreCompletionsStillSeeEveryCall) {
  StartServer(
      "[{name: test_recorder, tag: s1, observes_done: false}, "
      "{name: test_recorder, tag: s2, observes_done: false}]");
  demo::EchoServiceProxy proxy = NewProxy(
      "[{name: test_recorder, tag: c1, observes_done: false}, "
      "{name: test_recorder, tag: c2, observes_done: false}]");
  ASSERT_TRUE(proxy.Echo(EchoOf("x")).ok());
  EXPECT_THAT(RecordedEvents(),
              ElementsAre("client c1 call", "client c2 call", "server s1 call", "server s2 call"));
  ClearRecordedEvents();

  demo::EchoServiceProxy rejected = NewProxy(
      "[{name: test_recorder, tag: c1, observes_done: false}, "
      "{name: test_recorder, tag: c2, observes_done: false, reject: true}]");
  const auto result = rejected.Echo(EchoOf("x"));
  EXPECT_EQ(result.status(), Status(StatusCode::PERMISSION_DENIED, "rejected by c2"));
  EXPECT_THAT(RecordedEvents(), ElementsAre("client c1 call", "client c2 call"));
  EXPECT_EQ(service_.handled(), 1);
}

// One filter that observes completions is enough for the chain to keep the call: every filter
// that saw it then gets OnDone, as before.
TEST_F(FilterChainTest, OneObservingFilterKeepsTheWholeChainsOnDone) {
  StartServer(
      "[{name: test_recorder, tag: s1, observes_done: false}, {name: test_recorder, tag: s2}]");
  demo::EchoServiceProxy proxy = NewProxy(
      "[{name: test_recorder, tag: c1}, {name: test_recorder, tag: c2, observes_done: false}]");
  ASSERT_TRUE(proxy.Echo(EchoOf("x")).ok());
  EXPECT_THAT(RecordedEvents(),
              ElementsAre("client c1 call", "client c2 call", "server s1 call", "server s2 call",
                          "server s2 done OK", "server s1 done OK", "client c2 done OK",
                          "client c1 done OK"));
}

// A filter made in code: it names the caller for the handler, or refuses the call.
class CodeFilter final : public ServerFilter {
 public:
  explicit CodeFilter(bool refuse) : refuse_(refuse) {}
  void Configure(config::ConfigReader&) override {}
  bool ObservesDone() const override { return false; }
  Status OnCall(ServerCall& call) override {
    ++calls;
    if (refuse_) return Status(StatusCode::UNAUTHENTICATED, "refused in code");
    call.context.set_verified_caller("from-code");
    return Status::Ok();
  }
  std::atomic<int> calls{0};

 private:
  const bool refuse_;
};

// Server::AddFilter: the filter runs after the configured ones (which may refuse first), its
// verdict is the call's, and what it writes into the context reaches the handler.
TEST_F(FilterChainTest, AFilterAddedInCodeRunsAfterTheConfiguredOnes) {
  auto naming = std::make_shared<CodeFilter>(false);
  StartServer("[{name: test_recorder, tag: s1}]", {naming});
  demo::EchoServiceProxy proxy = NewProxy();
  ASSERT_TRUE(proxy.Echo(EchoOf("x")).ok());
  EXPECT_EQ(naming->calls.load(), 1);
  EXPECT_EQ(service_.last_verified_caller(), "from-code");
  EXPECT_THAT(RecordedEvents(), ElementsAre("server s1 call", "server s1 done OK"));
  server_->Stop();

  auto refusing = std::make_shared<CodeFilter>(true);
  StartServer("[{name: test_recorder, tag: s1, reject: true}]", {refusing});
  demo::EchoServiceProxy first = NewProxy();
  EXPECT_EQ(first.Echo(EchoOf("x")).status().code(), StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(refusing->calls.load(), 0) << "a configured filter refused before it";
  server_->Stop();

  StartServer("[]", {refusing});
  demo::EchoServiceProxy second = NewProxy();
  EXPECT_EQ(second.Echo(EchoOf("x")).status(),
            Status(StatusCode::UNAUTHENTICATED, "refused in code"));
  EXPECT_EQ(refusing->calls.load(), 1);
  EXPECT_EQ(service_.handled(), 1);
}

// Each filter keeps its own state per method, made once per channel (client) or server, and
// every call of the method is handed it; the recorders note any call that comes without it.
TEST_F(FilterChainTest, EachFilterGetsItsOwnStatePerMethodMadeOnce) {
  StartServer("[{name: test_recorder, tag: s}]");
  EXPECT_THAT(RecordedMethodStates(), UnorderedElementsAre("server s ferry.demo.EchoService/Echo",
                                                           "server s ferry.demo.EchoService/Delay"))
      << "a server makes them for every method at start";
  ClearRecordedEvents();
  demo::EchoServiceProxy proxy = NewProxy(
      "[{name: test_recorder, tag: c1}, {name: test_recorder, tag: c2, "
      "observes_done: false}]");
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(proxy.Echo(EchoOf("x")).ok());
  ASSERT_TRUE(proxy.Delay(demo::DelayRequest()).ok());
  ASSERT_TRUE(proxy.Echo(EchoOf("y")).ok());
  EXPECT_THAT(RecordedMethodStates(), ElementsAre("client c1 ferry.demo.EchoService/Echo",
                                                  "client c2 ferry.demo.EchoService/Echo",
                                                  "client c1 ferry.demo.EchoService/Delay",
                                                  "client c2 ferry.demo.EchoService/Delay"));
  for (const std::string& event : RecordedEvents()) {
    EXPECT_EQ(event.find("lost"), std::string::npos) << event;
  }
}

TEST_F(FilterChainTest, RejectingClientFilterSendsNothing) {
  StartServer("[{name: test_recorder, tag: s}]");
  demo::EchoServiceProxy proxy = NewProxy(
      "[{name: test_recorder, tag: c1}, {name: test_recorder, tag: c2, reject: true}, "
      "{name: test_recorder, tag: c3}]");
  const auto result = proxy.Echo(EchoOf("x"));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status(), Status(StatusCode::PERMISSION_DENIED, "rejected by c2"));
  // c3 never saw the call, and neither did the server: only the filters that ran see OnDone.
  EXPECT_THAT(RecordedEvents(),
              ElementsAre("client c1 call", "client c2 call", "client c2 done PERMISSION_DENIED",
                          "client c1 done PERMISSION_DENIED"));
  EXPECT_EQ(service_.handled(), 0);
}

TEST_F(FilterChainTest, RejectingServerFilterAnswersInsteadOfTheHandler) {
  StartServer(
      "[{name: test_recorder, tag: s1}, {name: test_recorder, tag: s2, reject: true}, "
      "{name: test_recorder, tag: s3}]");
  const auto result = NewProxy().Echo(EchoOf("x"));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status(), Status(StatusCode::PERMISSION_DENIED, "rejected by s2"));
  EXPECT_THAT(RecordedEvents(),
              ElementsAre("server s1 call", "server s2 call", "server s2 done PERMISSION_DENIED",
                          "server s1 done PERMISSION_DENIED"));
  EXPECT_EQ(service_.handled(), 0);
}

TEST_F(FilterChainTest, HandlerFailureReachesOnDone) {
  StartServer("[{name: test_recorder, tag: s}]");
  demo::DelayRequest failing;
  failing.set_fail_code(static_cast<uint32_t>(StatusCode::NOT_FOUND));
  ASSERT_EQ(NewProxy().Delay(failing).status().code(), StatusCode::NOT_FOUND);
  EXPECT_THAT(RecordedEvents(), ElementsAre("server s call", "server s done NOT_FOUND"));
}

// A filter that throws is contained as a handler that throws is: the call is answered INTERNAL,
// the line is logged, and the server goes on serving. The filters before it see the call end;
// the one that threw never finished its OnCall, so gets no OnDone, and the handler never runs.
TEST_F(FilterChainTest, ThrowingServerFilterAnswersInternalAndTheServerLivesOn) {
  testsupport::LogCapture log;
  StartServer(
      "[{name: test_recorder, tag: s1}, {name: test_recorder, tag: s2, throw_on_call: true}, "
      "{name: test_recorder, tag: s3}]");
  demo::EchoServiceProxy proxy = NewProxy();
  // Echo runs on the IO thread, Delay on the business pool: both are contained.
  const auto inline_result = proxy.Echo(EchoOf("x"));
  EXPECT_EQ(inline_result.status(),
            Status(StatusCode::INTERNAL,
                   "server filter test_recorder threw in OnCall: s2 threw in OnCall"));
  EXPECT_THAT(RecordedEvents(),
              ElementsAre("server s1 call", "server s2 call", "server s1 done INTERNAL"));
  ClearRecordedEvents();
  EXPECT_EQ(proxy.Delay(demo::DelayRequest()).status().code(), StatusCode::INTERNAL);
  EXPECT_THAT(RecordedEvents(),
              ElementsAre("server s1 call", "server s2 call", "server s1 done INTERNAL"));
  EXPECT_EQ(service_.handled(), 0);
  EXPECT_TRUE(
      log.WaitFor("ferry server: filter test_recorder threw in OnCall of "
                  "ferry.demo.EchoService/Echo: s2 threw in OnCall",
                  std::chrono::seconds(5)));
}

TEST_F(FilterChainTest, ServerFilterThrowingInOnDoneStillLetsTheAnswerOut) {
  testsupport::LogCapture log;
  StartServer(
      "[{name: test_recorder, tag: s1}, {name: test_recorder, tag: s2, throw_on_done: true}]");
  demo::EchoServiceProxy proxy = NewProxy();
  for (int i = 0; i < 2; ++i) {
    ClearRecordedEvents();
    EXPECT_TRUE(proxy.Echo(EchoOf("x")).ok());
    EXPECT_TRUE(proxy.Delay(demo::DelayRequest()).ok());
    EXPECT_THAT(
        RecordedEvents(),
        ElementsAre("server s1 call", "server s2 call", "server s2 done OK", "server s1 done OK",
                    "server s1 call", "server s2 call", "server s2 done OK", "server s1 done OK"));
  }
  EXPECT_EQ(service_.handled(), 4);
  EXPECT_TRUE(
      log.WaitFor("ferry server: filter test_recorder threw in OnDone of "
                  "ferry.demo.EchoService/Delay: s2 threw in OnDone",
                  std::chrono::seconds(5)));
}

TEST_F(FilterChainTest, ThrowingClientFilterFailsTheCallWithoutSendingIt) {
  testsupport::LogCapture log;
  StartServer("[]");
  const auto observed =
      NewProxy(
          "[{name: test_recorder, tag: c1}, {name: test_recorder, tag: c2, throw_on_call: true}]")
          .Echo(EchoOf("x"));
  EXPECT_EQ(observed.status(),
            Status(StatusCode::INTERNAL,
                   "client filter test_recorder threw in OnCall: c2 threw in OnCall"));
  EXPECT_THAT(RecordedEvents(),
              ElementsAre("client c1 call", "client c2 call", "client c1 done INTERNAL"));
  // A chain whose filters ignore completions runs them another way; the same holds.
  const auto blind = NewProxy(
                         "[{name: test_recorder, tag: c, observes_done: false, "
                         "throw_on_call: true}]")
                         .Echo(EchoOf("x"));
  EXPECT_EQ(blind.status().code(), StatusCode::INTERNAL) << blind.status();
  EXPECT_EQ(service_.handled(), 0);
  EXPECT_TRUE(
      log.WaitFor("ferry client: filter test_recorder threw in OnCall of "
                  "ferry.demo.EchoService/Echo: c2 threw in OnCall",
                  std::chrono::seconds(5)));
}

// OnDone runs on the channel's IO thread, as the answer arrives: an exception there must neither
// take the thread down nor keep the caller from its answer.
TEST_F(FilterChainTest, ClientFilterThrowingInOnDoneStillDeliversTheAnswer) {
  testsupport::LogCapture log;
  StartServer("[]");
  demo::EchoServiceProxy proxy = NewProxy(
      "[{name: test_recorder, tag: c1}, {name: test_recorder, tag: c2, throw_on_done: true}]");
  for (int i = 0; i < 3; ++i) {
    const auto result = proxy.Echo(EchoOf("x"));
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result.value().payload(), "x");
  }
  EXPECT_EQ(service_.handled(), 3);
  EXPECT_THAT(RecordedEvents(), Contains("client c1 done OK").Times(3));
  EXPECT_TRUE(
      log.WaitFor("ferry client: filter test_recorder threw in OnDone of "
                  "ferry.demo.EchoService/Echo: c2 threw in OnDone",
                  std::chrono::seconds(5), 3));
}

TEST_F(FilterChainTest, UnknownServerFilterFailsStart) {
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.filters = {FilterSpec::FromYaml("nope", "{name: nope}")};
  Server server(options);
  const Status status = server.Start();
  EXPECT_EQ(status.code(), StatusCode::INVALID_ARGUMENT) << status;
  EXPECT_THAT(status.message(), AllOf(HasSubstr("unknown server filter 'nope' (known: "),
                                      HasSubstr("auth"), HasSubstr("ratelimit")));
}

TEST_F(FilterChainTest, MisconfiguredServerFilterFailsStart) {
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.filters = Filters("server", "[{name: auth, secret: ''}]");
  Server server(options);
  const Status status = server.Start();
  EXPECT_EQ(status.code(), StatusCode::INVALID_ARGUMENT) << status;
  EXPECT_THAT(status.message(), HasSubstr("test:2: server.filters[0].secret: must be set"));
}

TEST_F(FilterChainTest, UnknownClientFilterFailsNewChannel) {
  ClientOptions options;
  options.target = "127.0.0.1:1";
  options.filters = {FilterSpec::FromYaml("nope", "{name: nope}")};
  std::shared_ptr<Channel> channel;
  const Status status = NewChannel(options, &channel);
  EXPECT_EQ(status.code(), StatusCode::INVALID_ARGUMENT) << status;
  EXPECT_THAT(status.message(),
              AllOf(HasSubstr("unknown client filter 'nope' (known: "), HasSubstr("auth")));
  EXPECT_EQ(channel, nullptr);
}

}  // namespace
}  // namespace ferry::plugins_test
