// Prometheus' own linter, promtool, reads what RenderText writes: the text must parse, and
// follow the conventions promtool checks (counter suffixes, units, help on every family).

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "ferry/framework/metrics/process_metrics.h"
#include "ferry/framework/metrics/text_format.h"

namespace ferry::metrics {
namespace {

using ::testing::HasSubstr;

struct PromtoolResult {
  int exit_code = -1;
  std::string output;
};

// `promtool check metrics` on `text`, through a file as a scrape would be saved.
PromtoolResult CheckMetrics(const std::string& text) {
  const std::string promtool = FERRY_PROMTOOL;
  if (promtool.empty() || promtool.ends_with("NOTFOUND")) {
    ADD_FAILURE() << "promtool was not found when the build was configured; install Debian's "
                     "prometheus package (scripts/test.sh does) and configure again";
    return {};
  }
  char path[] = "/tmp/ferry_metrics_XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) {
    ADD_FAILURE() << "mkstemp failed";
    return {};
  }
  close(fd);
  std::ofstream(path) << text;
  PromtoolResult result;
  const std::string command = promtool + " check metrics < " + path + " 2>&1";
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[4096];
    while (size_t n = fread(buffer, 1, sizeof(buffer), pipe)) result.output.append(buffer, n);
    const int status = pclose(pipe);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::filesystem::remove(path);
  return result;
}

TEST(PromtoolTest, APopulatedRegistryPassesPromtoolCheckMetrics) {
  MetricsRegistry registry;
  Result<std::unique_ptr<ProcessMetrics>> process = ProcessMetrics::Register(registry);
  ASSERT_TRUE(process.ok());
  CounterFamily* calls = *registry.AddCounter("ferry_server_calls_total", "Calls served.",
                                              {"service", "method", "code"});
  (*calls->WithLabels({"ferry.demo.EchoService", "Echo", "OK"}))->Increment(41);
  (*calls->WithLabels({"odd \"service\"", "back\\slash", "new\nline"}))->Increment();
  HistogramFamily* duration = *registry.AddHistogram("ferry_server_call_duration_seconds",
                                                     "Time to answer.", {"service", "method"});
  Histogram* echo = *duration->WithLabels({"ferry.demo.EchoService", "Echo"});
  for (int us = 50; us < 20'000'000; us *= 3) echo->Observe(std::chrono::microseconds(us));
  (*registry.AddUpDownCounter("ferry_server_calls_in_flight", "Calls running."))
      ->WithLabels({})
      .value()
      ->Increment();
  (*registry.AddGauge("seckill_stream_backlog", "Orders not yet written."))
      ->WithLabels({})
      .value()
      ->Set(12);
  CallbackFamily* connections =
      *registry.AddGaugeCallback("ferry_server_connections", "Open connections.", {"protocol"});
  Result<CallbackHandle> bound = connections->Bind({"ferry"}, [] { return 3.0; });
  ASSERT_TRUE(bound.ok());

  const std::string text = RenderText(registry);
  const PromtoolResult result = CheckMetrics(text);
  EXPECT_EQ(result.exit_code, 0) << result.output << "\nchecking:\n" << text;
  EXPECT_EQ(result.output, "") << "checking:\n" << text;
}

// So that the test above cannot pass by promtool accepting anything.
TEST(PromtoolTest, PromtoolRefusesTextThatBreaksTheConventions) {
  FamilySnapshot family;
  family.name = "calls";  // a counter without _total: MetricsRegistry would refuse it
  family.help = "Calls.";
  family.type = MetricType::kCounter;
  family.series.emplace_back().value = 1;
  const PromtoolResult result = CheckMetrics(RenderText({family}));
  EXPECT_NE(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("counter metrics should have \"_total\" suffix"));
}

}  // namespace
}  // namespace ferry::metrics
