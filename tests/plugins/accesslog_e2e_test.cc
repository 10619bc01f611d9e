#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "ferry/framework/plugin.h"
#include "filter_fixture.h"
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
  options.trace_id = "caller-trace-0042";
  ASSERT_TRUE(NewProxy("[" + LogYaml("client.log") + "]").Echo(EchoOf("x"), options).ok());

  EXPECT_NE(WaitForLine(dir_.File("server.log"),
                        "server trace=caller-trace-0042 span=[0-9a-f]{16} parent=- "
                        "call=ferry.demo.EchoService/Echo peer=127\\.0\\.0\\.1:[0-9]+ status=OK "
                        "latency_us=[0-9]+$"),
            "");
  EXPECT_NE(WaitForLine(dir_.File("client.log"),
                        "client trace=caller-trace-0042 span=- parent=- "
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
