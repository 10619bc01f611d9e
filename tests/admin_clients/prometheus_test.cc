// A real Prometheus scraping a real echo-server's /metrics every second: what it stores must be
// exactly the calls made over both protocols of the one port, promtool must accept the live
// exposition, and binary calls on that port keep succeeding all the while.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bounded_command.h"
#include "echo.ferry.h"
#include "echo_calls.h"
#include "ferry/framework/channel.h"
#include "prometheus_server.h"
#include "ready_process.h"
#include "temp_dir.h"

namespace ferry::admin_clients_test {
namespace {

using namespace std::chrono_literals;
using testsupport::LoopbackHttp;
using testsupport::LoopbackHttpResult;
using testsupport::PrometheusServer;

constexpr int kBinaryEchoes = 25;
constexpr int kGatewayEchoes = 15;
constexpr auto kPrometheusWait = 30s;
constexpr auto kPollEvery = 200ms;

const std::string kEchoOk =
    R"(ferry_server_calls_total{service="ferry.demo.EchoService",method="Echo",code="OK"})";
const std::string kDelayOk =
    R"(ferry_server_calls_total{service="ferry.demo.EchoService",method="Delay",code="OK"})";

// Closed-loop binary Delay calls on the server's port from a thread of its own, for as long as
// the test talks to the server over HTTP and Prometheus scrapes it. Delay rather than Echo, so
// that the Echo count the test checks stays put.
class DelayLoad {
 public:
  explicit DelayLoad(std::shared_ptr<Channel> channel) : proxy_(std::move(channel)) {
    thread_ = std::thread([this] { Run(); });
  }
  ~DelayLoad() { Stop(); }

  void Stop() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
  }
  // Bounded wait until `n` calls have succeeded since the start.
  bool WaitForSuccesses(uint64_t n) {
    for (int i = 0; i < 2000 && successes_.load() < n; ++i) std::this_thread::sleep_for(5ms);
    return successes_.load() >= n;
  }
  uint64_t successes() const { return successes_.load(); }
  size_t failures() {
    std::lock_guard lock(mu_);
    return failures_.size();
  }

 private:
  void Run() {
    // Bounded even if the test never says stop.
    for (int call = 0; call < 200000 && !stop_.load(); ++call) {
      demo::DelayRequest request;
      request.set_sleep_ms(2);
      request.set_payload("load " + std::to_string(call));
      CallOptions options;
      options.timeout = 10s;
      Result<demo::EchoResponse> reply = proxy_.Delay(request, options);
      if (reply.ok() && reply->payload() == request.payload()) {
        successes_.fetch_add(1);
        continue;
      }
      const std::string failure =
          "Delay call " + std::to_string(call) + ": " +
          (reply.ok() ? "wrong payload " + reply->payload() : reply.status().ToString());
      std::lock_guard lock(mu_);
      // Reported as it happens, so that a test stopped early by another assertion still shows
      // it; a few are enough to tell what went wrong.
      if (failures_.size() < 10) ADD_FAILURE() << failure;
      failures_.push_back(failure);
    }
  }

  demo::EchoServiceProxy proxy_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> successes_{0};
  std::mutex mu_;
  std::vector<std::string> failures_;
  std::thread thread_;
};

// The one series of an instant query's answer, read from Prometheus' JSON
// ({"status":"success","data":{"resultType":"vector","result":[{"metric":{...},
// "value":[<time>,"<number>"]}]}}). `"value":[` occurs only as a sample's key: inside a JSON
// string every quote is escaped, and a label named "value" is followed by a string, not `[`.
struct Reading {
  std::optional<double> value;  // none while the series is not there yet
  std::string problem;          // an answer that is not what a working query gives
};

Reading ReadOneSeries(const LoopbackHttpResult& answer) {
  Reading reading;
  const std::string& json = answer.body;
  if (answer.status != 200 || json.find(R"("status":"success")") == std::string::npos ||
      json.find(R"("resultType":"vector")") == std::string::npos) {
    reading.problem = "HTTP " + std::to_string(answer.status) + " " + answer.error + ": " + json;
    return reading;
  }
  static const std::string kValue = R"("value":[)";
  const size_t at = json.find(kValue);
  if (at == std::string::npos) return reading;  // an empty vector: not scraped yet
  if (json.find(kValue, at + 1) != std::string::npos) {
    reading.problem = "more than one series: " + json;
    return reading;
  }
  const size_t open = json.find(",\"", at + kValue.size());
  const size_t close = open == std::string::npos ? open : json.find('"', open + 2);
  if (close == std::string::npos) {
    reading.problem = "no sample value in " + json;
    return reading;
  }
  const std::string number = json.substr(open + 2, close - open - 2);
  char* end = nullptr;
  const double value = std::strtod(number.c_str(), &end);
  if (number.empty() || end != number.c_str() + number.size()) {
    reading.problem = "sample value '" + number + "' is not a number: " + json;
    return reading;
  }
  reading.value = value;
  return reading;
}

// Polls `expr` until its one series reads exactly `expected`: Prometheus stores a new sample
// every scrape interval, so the value shows up within a few seconds. Bounded.
::testing::AssertionResult EventuallyReads(const PrometheusServer& prometheus,
                                           const std::string& expr, double expected) {
  const auto until = std::chrono::steady_clock::now() + kPrometheusWait;
  std::string last = "no answer";
  while (std::chrono::steady_clock::now() < until) {
    const LoopbackHttpResult answer = prometheus.Query(expr);
    const Reading reading = ReadOneSeries(answer);
    if (!reading.problem.empty()) {
      return ::testing::AssertionFailure() << expr << ": " << reading.problem;
    }
    if (reading.value == expected) return ::testing::AssertionSuccess();
    last = reading.value ? std::to_string(*reading.value) : "no series yet";
    std::this_thread::sleep_for(kPollEvery);
  }
  return ::testing::AssertionFailure()
         << expr << " did not read " << expected << " within " << kPrometheusWait.count()
         << " s (last: " << last << "); Prometheus log:\n"
         << prometheus.LogTail();
}

TEST(PrometheusTest, ScrapesExactlyTheCallsMadeOverBothProtocolsWhileBinaryCallsGoOn) {
  testsupport::TempDir dir("ferry-admin-prometheus-");
  ASSERT_FALSE(dir.path().empty());
  testsupport::ReadyProcess server;
  ASSERT_TRUE(server.Start({ECHO_SERVER_BINARY, "--config", ECHO_SERVER_CONFIG, "--port", "0"},
                           "echo-server"));
  const uint16_t port = PortOf(server.address());

  std::shared_ptr<Channel> channel;
  ASSERT_TRUE(NewChannel(ClientOptions{.target = server.address()}, &channel).ok());
  DelayLoad load(channel);
  ASSERT_TRUE(load.WaitForSuccesses(20)) << "binary Delay calls do not get through";

  demo::EchoServiceProxy proxy(channel);
  ASSERT_NO_FATAL_FAILURE(MakeEchoCalls(proxy, port, kBinaryEchoes, kGatewayEchoes));
  const int echoes = kBinaryEchoes + kGatewayEchoes;

  // promtool on what a scrape gets right now, with every family the calls created in it.
  {
    const LoopbackHttpResult metrics = LoopbackHttp(port, "GET", "/metrics");
    ASSERT_EQ(metrics.status, 200) << metrics.error;
    ASSERT_NE(metrics.body.find(kEchoOk + " " + std::to_string(echoes) + "\n"), std::string::npos)
        << metrics.body;
    const std::string promtool = FERRY_PROMTOOL;
    ASSERT_FALSE(promtool.empty() || promtool.ends_with("NOTFOUND"))
        << "promtool was not found when configuring; install Debian's prometheus package "
           "(scripts/lib/common.sh) and re-run cmake";
    const auto scrape = dir.path() / "metrics.txt";
    std::ofstream(scrape) << metrics.body;
    const CommandResult check =
        RunBounded({promtool, "check", "metrics"}, scrape, dir.path() / "promtool.out",
                   dir.path() / "promtool.err", 30s);
    ASSERT_TRUE(check.started) << check.error;
    ASSERT_FALSE(check.timed_out) << "promtool check metrics ran for over 30 s";
    const std::string said =
        ReadFile(dir.path() / "promtool.out") + ReadFile(dir.path() / "promtool.err");
    EXPECT_EQ(check.exit_code, 0) << said << "\nchecking:\n" << metrics.body;
    EXPECT_EQ(said, "") << "checking:\n" << metrics.body;
  }

  PrometheusServer prometheus;
  ASSERT_TRUE(prometheus.Start({server.address()}));
  const std::string job = std::string(PrometheusServer::kJob);
  ASSERT_TRUE(EventuallyReads(prometheus, "up{job=\"" + job + "\"}", 1));
  ASSERT_TRUE(EventuallyReads(prometheus, kEchoOk, echoes));
  EXPECT_TRUE(EventuallyReads(
      prometheus,
      R"(ferry_server_call_duration_seconds_count{service="ferry.demo.EchoService",method="Echo"})",
      echoes));

  load.Stop();
  EXPECT_EQ(load.failures(), 0u) << "no binary call may fail";
  EXPECT_TRUE(EventuallyReads(prometheus, kDelayOk, static_cast<double>(load.successes())));
  EXPECT_TRUE(EventuallyReads(prometheus, "up{job=\"" + job + "\"}", 1))
      << "the target kept answering scrapes";

  demo::EchoRequest last;
  last.set_payload("after");
  Result<demo::EchoResponse> reply = proxy.Echo(last);
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(reply->payload(), "after");
}

}  // namespace
}  // namespace ferry::admin_clients_test
