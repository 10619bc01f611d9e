#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#include "ferry/framework/filter.h"
#include "ferry/framework/plugin.h"
#include "ferry/rpc_meta.pb.h"
#include "filter_fixture.h"
#include "frame_client.h"
#include "scratch_dir.h"

namespace ferry::plugins_test {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using namespace std::chrono_literals;

// The access log is written by a background thread: waits up to five seconds for a line
// matching `pattern` (a POSIX extended regex) and returns it, or "" if none came.
std::string WaitForLine(const std::string& file, const std::string& pattern) {
  const auto wanted = ContainsRegex(pattern);
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (std::chrono::steady_clock::now() < deadline) {
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);) {
      if (::testing::Matches(wanted)(line)) return line;
    }
    std::this_thread::sleep_for(10ms);
  }
  return "";
}

// "4bf92f35…" of "... server trace=4bf92f35… span=...".
std::string TraceIdOf(const std::string& line) {
  const size_t start = line.find(" trace=");
  if (start == std::string::npos) return "";
  const size_t id = start + std::string_view(" trace=").size();
  return line.substr(id, line.find(' ', id) - id);
}

class AccessLogTest : public FilterFixture {
 protected:
  void SetUp() override {
    const Status loaded = LoadPlugin(ACCESSLOG_PLUGIN);
    ASSERT_TRUE(loaded.ok()) << loaded;
  }

  std::string LogYaml(const std::string& file) const {
    return "{name: accesslog, file: \"" + dir_.File(file) + "\"}";
  }

  ScratchDir dir_;
};

TEST_F(AccessLogTest, ServerLogsTheTraceIdTheCallerSet) {
  StartServer("[" + LogYaml("server.log") + "]");
  CallOptions options;
  options.trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
  ASSERT_TRUE(NewProxy("[" + LogYaml("client.log") + "]").Echo(EchoOf("x"), options).ok());

  EXPECT_NE(WaitForLine(dir_.File("server.log"),
                        "server trace=4bf92f3577b34da6a3ce929d0e0e4736 span=[0-9a-f]{16} parent=- "
                        "call=ferry.demo.EchoService/Echo peer=127\\.0\\.0\\.1:[0-9]+ status=OK "
                        "latency_us=[0-9]+$"),
            "");
  EXPECT_NE(WaitForLine(dir_.File("client.log"),
                        "client trace=4bf92f3577b34da6a3ce929d0e0e4736 span=- parent=- "
                        "call=ferry.demo.EchoService/Echo peer=- status=OK latency_us=[0-9]+$"),
            "");
}

TEST_F(AccessLogTest, GeneratedTraceIdIsTheSameOnBothSides) {
  StartServer("[" + LogYaml("server.log") + "]");
  ASSERT_TRUE(NewProxy("[" + LogYaml("client.log") + "]").Echo(EchoOf("x")).ok());

  const std::string client_trace = TraceIdOf(WaitForLine(dir_.File("client.log"), "client trace="));
  const std::string server_trace = TraceIdOf(WaitForLine(dir_.File("server.log"), "server trace="));
  EXPECT_THAT(client_trace, MatchesRegex("[0-9a-f]{32}"));
  EXPECT_EQ(client_trace, server_trace);
}

// Every line of `file`: one per call, each beginning with its time.
std::vector<std::string> LinesOf(const std::string& file) {
  std::vector<std::string> lines;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

void ExpectEveryLineIsACall(const std::string& file) {
  for (const std::string& line : LinesOf(file)) {
    EXPECT_THAT(line, ContainsRegex("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+ (server|client) trace="))
        << line;
  }
}

TEST_F(AccessLogTest, ACallerTraceIdThatIsNoTraceIdIsReplacedOnBothSides) {
  StartServer("[" + LogYaml("server.log") + "]");
  CallOptions options;
  options.trace_id = "x\n2026-01-01T00:00:00 server trace=forged status=OK";
  ASSERT_TRUE(NewProxy("[" + LogYaml("client.log") + "]").Echo(EchoOf("x"), options).ok());
  const std::string client_trace = TraceIdOf(WaitForLine(dir_.File("client.log"), "client trace="));
  EXPECT_THAT(client_trace, MatchesRegex("[0-9a-f]{32}"));
  EXPECT_EQ(TraceIdOf(WaitForLine(dir_.File("server.log"), "server trace=")), client_trace);
  ExpectEveryLineIsACall(dir_.File("client.log"));
  ExpectEveryLineIsACall(dir_.File("server.log"));
}

// A binary caller that sets the meta's trace id itself: log forging ("a\n<a line of its own>")
// and amplification (64 KiB on every line) alike come to a fresh id.
TEST_F(AccessLogTest, ABinaryTraceIdThatIsNoTraceIdIsLoggedAsAFreshOne) {
  StartServer("[" + LogYaml("server.log") + "]");
  test::FrameClient client(server_->port());
  wire::RpcMeta meta;
  meta.set_service("ferry.demo.EchoService");
  meta.set_method("Echo");
  meta.set_trace_id("a\nb");
  codec::FrameHeader header;
  header.request_id = 1;
  ASSERT_TRUE(
      client.SendFrame(header, meta.SerializeAsString(), EchoOf("forged").SerializeAsString()));
  const std::optional<codec::Frame> reply = client.ReadFrame();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->header.status, 0u) << "served all the same";

  const std::string line = WaitForLine(dir_.File("server.log"), "call=ferry.demo.EchoService/Echo");
  EXPECT_THAT(line, ContainsRegex(" server trace=[0-9a-f]{32} span=- parent=- "
                                  "call=ferry.demo.EchoService/Echo peer=127\\.0\\.0\\.1:[0-9]+ "
                                  "status=OK latency_us=[0-9]+$"));
  const std::vector<std::string> lines = LinesOf(dir_.File("server.log"));
  ASSERT_EQ(lines.size(), 1u) << "one call, one line";
  ExpectEveryLineIsACall(dir_.File("server.log"));
}

// Refuses every call quoting what its caller attached as "note", as an error may quote what a
// peer sent (a JSON key, a code it asked for).
class QuotingFilter final : public ServerFilter {
 public:
  void Configure(config::ConfigReader&) override {}
  Status OnCall(ServerCall& call) override {
    const auto note = call.context.attachments().find("note");
    return Status(StatusCode::PERMISSION_DENIED,
                  "refused: " + (note == call.context.attachments().end() ? "" : note->second));
  }
  void OnDone(const ServerCall&, const Status&, std::chrono::nanoseconds) override {}
};

// The line is still one, and its error field still ends where it seems to.
TEST_F(AccessLogTest, WhatAPeerPutInAnErrorIsEscaped) {
  StartServer("[" + LogYaml("server.log") + "]", {std::make_shared<QuotingFilter>()});
  CallOptions options;
  options.attachments["note"] =
      "\" x\n2026-01-01T00:00:00.000000 server trace=0 call=a/b peer=- status=OK "
      "latency_us=1\r\x1b[2J";
  EXPECT_EQ(NewProxy().Echo(EchoOf("x"), options).status().code(), StatusCode::PERMISSION_DENIED);
  const std::string line = WaitForLine(dir_.File("server.log"), "status=PERMISSION_DENIED");
  EXPECT_THAT(line, HasSubstr("error=\"refused: \\\" x\\n2026-01-01T00:00:00.000000 server "
                              "trace=0 call=a/b peer=- status=OK latency_us=1\\r\\x1b[2J\""))
      << line;
  EXPECT_EQ(LinesOf(dir_.File("server.log")).size(), 1u);
  ExpectEveryLineIsACall(dir_.File("server.log"));
}

TEST_F(AccessLogTest, RejectedCallsAreLoggedWithTheirStatus) {
  StartServer("[" + LogYaml("server.log") + ", {name: auth, secret: s3cr3t}]");
  ASSERT_EQ(NewProxy().Echo(EchoOf("x")).status().code(), StatusCode::UNAUTHENTICATED);
  EXPECT_NE(WaitForLine(dir_.File("server.log"),
                        "status=UNAUTHENTICATED latency_us=[0-9]+ error=\"auth: missing token "
                        "for ferry.demo.EchoService/Echo\"$"),
            "");
}

TEST_F(AccessLogTest, UnwritableFileFailsStart) {
  const std::string not_a_dir = dir_.Write("plain-file", "");
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.filters = Filters("server", "[{name: accesslog, file: \"" + not_a_dir + "/x.log\"}]");
  Server server(options);
  const Status status = server.Start();
  EXPECT_EQ(status.code(), StatusCode::INVALID_ARGUMENT) << status;
  EXPECT_THAT(status.message(), HasSubstr("test:2: server.filters[0].file: cannot open access "
                                          "log '" +
                                          not_a_dir + "/x.log'"));
}

}  // namespace
}  // namespace ferry::plugins_test
