// Apps started while their ZooKeeper is down (docs/registry.md, "ZooKeeper down at start"): by
// default a provider serves, unready, and registers once ZooKeeper is up, and a consumer's calls
// fail naming the registry until then and reach the provider after; with
// `registry.startup: failfast` both refuse to start, saying why.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "echo.ferry.h"
#include "ferry/framework/app.h"
#include "process.h"
#include "raw_http_client.h"
#include "ready_process.h"
#include "zookeeper_server.h"

namespace ferry::app_test {
namespace {

using namespace std::chrono_literals;
using testsupport::ReadyProcess;

constexpr auto kRecovery = 30s;  // ZooKeeper's JVM on a busy machine, then the clients' retry

Config Parse(const std::string& yaml) {
  Config config;
  const Status status = ParseConfig(yaml, "startup.yaml", &config);
  EXPECT_TRUE(status.ok()) << status;
  return config;
}

std::string RegistrySection(uint16_t zookeeper_port, const std::string& startup) {
  return "registry:\n  url: zookeeper://127.0.0.1:" + std::to_string(zookeeper_port) +
         "\n  namespace: startup\n  connect_timeout_ms: 300\n  startup: " + startup + "\n";
}

int HttpStatus(uint16_t port, std::string_view path) {
  http_test::RawHttpClient client(port);
  if (!client.Send(http_test::Request("GET", path))) return 0;
  const auto response = client.Read();
  return response ? response->status : 0;
}

uint16_t PortOf(const std::string& address) {
  return static_cast<uint16_t>(std::stoi(address.substr(address.rfind(':') + 1)));
}

// Delay, the counting provider's method.
Result<demo::EchoResponse> Call(demo::EchoServiceProxy& proxy, const std::string& payload) {
  demo::DelayRequest request;
  request.set_payload(payload);
  return proxy.Delay(request);
}

class RegistryStartupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testsupport::internal::MakeTempDir("ferry-startup-");
    ASSERT_FALSE(dir_.empty());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string WriteProviderConfig(uint16_t zookeeper_port, const std::string& startup) {
    const std::filesystem::path config = dir_ / "provider.yaml";
    std::ofstream(config) << "log: {level: warn}\n"
                          << "server: {listen: 127.0.0.1:0, drain_delay_ms: 0}\n"
                          << RegistrySection(zookeeper_port, startup)
                          << "service: {executions: " << (dir_ / "executions").string() << "}\n";
    return config.string();
  }

  std::filesystem::path dir_;
};

TEST_F(RegistryStartupTest, ProviderAndConsumerStartedBeforeZooKeeperFindEachOtherOnceItIsUp) {
  testsupport::ZooKeeperServer zookeeper;
  const uint16_t zookeeper_port = zookeeper.ChoosePort();  // nothing listens there yet

  ReadyProcess provider;
  ASSERT_TRUE(provider.Start(
      {COUNTING_PROVIDER_BINARY, "--config", WriteProviderConfig(zookeeper_port, "wait")},
      "counting-provider"));
  const uint16_t provider_port = PortOf(provider.address());
  EXPECT_EQ(HttpStatus(provider_port, "/health"), 200);
  EXPECT_EQ(HttpStatus(provider_port, "/ready"), 503) << "serving, but not registered yet";

  App consumer("consumer", Parse(RegistrySection(zookeeper_port, "wait") +
                                 "clients:\n  echo: {service: ferry.demo.EchoService, "
                                 "connect_timeout_ms: 100}\n"));
  auto echo = consumer.Client<demo::EchoServiceProxy>("echo");
  ASSERT_TRUE(consumer.ok()) << consumer.status();
  const Result<demo::EchoResponse> early = Call(echo, "early");
  EXPECT_EQ(early.status().code(), StatusCode::UNAVAILABLE);
  EXPECT_EQ(early.status().message(),
            "no provider of ferry.demo.EchoService is known to the registry (registry "
            "zookeeper://127.0.0.1:" +
                std::to_string(zookeeper_port) +
                " is unreachable: no ZooKeeper session since start)");

  ASSERT_TRUE(zookeeper.Start());
  // Bounded: the consumer learns of the provider on its registry's schedule.
  Result<demo::EchoResponse> reply = Call(echo, "late");
  for (const auto deadline = std::chrono::steady_clock::now() + kRecovery;
       !reply.ok() && std::chrono::steady_clock::now() < deadline;) {
    std::this_thread::sleep_for(20ms);
    reply = Call(echo, "late");
  }
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(reply->payload(), "late");
  EXPECT_EQ(HttpStatus(provider_port, "/ready"), 200) << "registered, hence found";
  EXPECT_EQ(provider.Terminate(20s), 0);
}

TEST_F(RegistryStartupTest, WithFailFastAProviderExitsSayingWhy) {
  const uint16_t nothing_there = testsupport::internal::PickFreePort();
  const std::filesystem::path log = dir_ / "provider.log";
  std::string error;
  const pid_t pid = testsupport::internal::Spawn(
      {COUNTING_PROVIDER_BINARY, "--config", WriteProviderConfig(nothing_there, "failfast")}, log,
      &error);
  ASSERT_GT(pid, 0) << error;
  int status = 0;
  ASSERT_TRUE(testsupport::internal::WaitExit(pid, 20s, &status)) << "it must not keep waiting";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1)
      << testsupport::internal::DescribeStatus(status);
  const std::string output = testsupport::internal::FileTail(log);
  EXPECT_NE(
      output.find("counting-provider: UNAVAILABLE: no ZooKeeper session with 127.0.0.1:" +
                  std::to_string(nothing_there) + " within 300 ms (registry.startup: failfast)"),
      std::string::npos)
      << output;
  EXPECT_EQ(output.find("counting-provider listening on"), std::string::npos) << "no ready line";
}

TEST_F(RegistryStartupTest, WithFailFastAConsumerRefusesToStartSayingWhy) {
  const uint16_t nothing_there = testsupport::internal::PickFreePort();
  App consumer("consumer", Parse(RegistrySection(nothing_there, "failfast") +
                                 "clients:\n  echo: {service: ferry.demo.EchoService}\n"));
  auto echo = consumer.Client<demo::EchoServiceProxy>("echo");
  EXPECT_FALSE(consumer.ok());
  const std::string why = "no ZooKeeper session with 127.0.0.1:" + std::to_string(nothing_there) +
                          " within 300 ms (registry.startup: failfast)";
  EXPECT_EQ(consumer.status(), Status(StatusCode::UNAVAILABLE, why));
  EXPECT_EQ(Call(echo, "x").status(), Status(StatusCode::UNAVAILABLE, why));
}

}  // namespace
}  // namespace ferry::app_test
