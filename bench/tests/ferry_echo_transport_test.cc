#include "echo_transport.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "channel_flags.h"
#include "ferry/bench/load_report.h"
#include "in_process_provider.h"
#include "service/echo_service.h"

namespace ferry::bench {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;
using ::testing::StartsWith;

// Counts what the driver issues, so that a test can check that every call came back once.
class CountingTransport final : public LoadDriver::Transport {
 public:
  explicit CountingTransport(LoadDriver::Transport& inner) : inner_(inner) {}

  void Issue(const LoadDriver::Call& call) override {
    issued.fetch_add(1, std::memory_order_relaxed);
    inner_.Issue(call);
  }

  std::atomic<uint64_t> issued{0};

 private:
  LoadDriver::Transport& inner_;
};

// Answers every Echo with an error, to see errors tallied by status name.
class ExhaustedEcho final : public demo::EchoServiceBase {
 public:
  Status Echo(ServerContext&, const demo::EchoRequest&, demo::EchoResponse*) override {
    return Status(StatusCode::RESOURCE_EXHAUSTED, "no echo today");
  }
};

// Echoes, and counts what it served, to see where a cluster channel sent the calls.
class CountingEcho final : public demo::EchoServiceBase {
 public:
  Status Echo(ServerContext&, const demo::EchoRequest& request,
              demo::EchoResponse* response) override {
    served.fetch_add(1, std::memory_order_relaxed);
    response->set_payload(request.payload());
    return Status::Ok();
  }

  std::atomic<uint64_t> served{0};
};

// An in-process provider of one service.
class Provider : public InProcessProvider {
 public:
  explicit Provider(Service* service) : InProcessProvider(std::span<Service* const>(&service, 1)) {}
};

LoadOptions ShortRun(const std::string& target) {
  LoadOptions options;
  options.target = target;
  options.conns = 2;
  options.depth = 8;
  options.size = 64;
  options.duration_seconds = 0.3;
  return options;
}

std::vector<std::shared_ptr<Channel>> Open(const LoadOptions& options) {
  std::vector<std::shared_ptr<Channel>> channels;
  const Status opened = OpenChannels(ChannelFlags{}, "ferry.demo.EchoService", options, &channels);
  EXPECT_TRUE(opened.ok()) << opened;
  return channels;
}

std::string LastLine(const std::string& text) {
  const size_t end = text.find_last_not_of('\n');
  const size_t begin = text.rfind('\n', end);
  return text.substr(begin == std::string::npos ? 0 : begin + 1, end - begin);
}

TEST(EchoTransportTest, EveryIssuedCallCompletesOnceAndSlowCallsGoThroughDelay) {
  demo::EchoServiceImpl service;
  Provider provider(&service);
  LoadOptions options = ShortRun(provider.target());
  options.slow_ratio = 0.5;
  options.slow_ms = 1;
  LoadDriver driver(options);
  EchoTransport transport(driver, options, Open(options));
  ASSERT_TRUE(transport.Probe().ok());
  CountingTransport counting(transport);
  std::ostringstream out;
  const LoadReport report("test", options, out);

  const LoadSummary summary = driver.Run(counting, report, std::chrono::seconds(5));
  transport.Stop();
  report.PrintSummary(summary);

  EXPECT_EQ(summary.errors, 0u);
  EXPECT_EQ(summary.unfinished_calls, 0u);
  EXPECT_GT(summary.ok_calls, 0u);
  // Fast calls are Echo, the rest Delay: both kinds were answered.
  EXPECT_GT(summary.fast_latency.count(), 0u);
  EXPECT_LT(summary.fast_latency.count(), summary.ok_calls);
  // Every issued call was answered once: the measured ones, plus at most one per slot that
  // came back after the run stopped and is not counted.
  const uint64_t issued = counting.issued.load();
  const uint64_t counted = summary.ok_calls + summary.errors;
  EXPECT_GE(issued, counted);
  EXPECT_LE(issued - counted, uint64_t{options.conns} * options.depth);
  EXPECT_THAT(LastLine(out.str()), StartsWith("RESULT qps="));
  EXPECT_THAT(LastLine(out.str()), HasSubstr(" errors=0"));
}

TEST(EchoTransportTest, FailedCallsAreCountedByStatusName) {
  ExhaustedEcho service;
  Provider provider(&service);
  const LoadOptions options = ShortRun(provider.target());
  LoadDriver driver(options);
  EchoTransport transport(driver, options, Open(options));
  std::ostringstream out;
  const LoadReport report("test", options, out);

  const LoadSummary summary = driver.Run(transport, report, std::chrono::seconds(5));
  transport.Stop();

  EXPECT_EQ(summary.ok_calls, 0u);
  EXPECT_GT(summary.errors, 0u);
  EXPECT_THAT(summary.errors_by_status, ElementsAre(Pair("RESOURCE_EXHAUSTED", summary.errors)));
  EXPECT_EQ(summary.unfinished_calls, 0u);
}

TEST(EchoTransportTest, RegistryModeSpreadsEachChannelOverEveryProvider) {
  CountingEcho first_service;
  CountingEcho second_service;
  Provider first(&first_service);
  Provider second(&second_service);
  const LoadOptions options = ShortRun("");
  ChannelFlags channel;
  channel.registry = "static://" + first.target() + "," + second.target();
  std::vector<std::shared_ptr<Channel>> channels;
  const Status opened = OpenChannels(channel, "ferry.demo.EchoService", options, &channels);
  ASSERT_TRUE(opened.ok()) << opened;
  ASSERT_EQ(channels.size(), options.conns);
  LoadDriver driver(options);
  EchoTransport transport(driver, options, std::move(channels));
  ASSERT_TRUE(transport.Probe().ok());
  std::ostringstream out;
  const LoadReport report("test", options, out);

  const LoadSummary summary = driver.Run(transport, report, std::chrono::seconds(5));
  transport.Stop();

  EXPECT_EQ(summary.errors, 0u);
  EXPECT_EQ(summary.unfinished_calls, 0u);
  EXPECT_GT(first_service.served.load(), 0u);
  EXPECT_GT(second_service.served.load(), 0u);
  EXPECT_GE(first_service.served.load() + second_service.served.load(), summary.ok_calls);
}

TEST(EchoTransportTest, ProbeReportsAnUnreachableService) {
  demo::EchoServiceImpl service;
  Provider provider(&service);
  const LoadOptions options = ShortRun(provider.target());
  provider.Stop();  // the port is now known to refuse connections
  LoadDriver driver(options);
  EchoTransport transport(driver, options, Open(options));

  const Status probed = transport.Probe();

  EXPECT_EQ(probed.code(), StatusCode::UNAVAILABLE) << probed;
  EXPECT_THAT(probed.message(), StartsWith("channel 0: "));
}

}  // namespace
}  // namespace ferry::bench
