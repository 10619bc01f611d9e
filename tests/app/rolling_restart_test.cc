// Rolling restarts under load: three providers of a method that is not idempotent, restarted
// one at a time with SIGTERM while closed-loop clients keep calling it. No call may fail, and no
// call may run twice (every provider writes down each call it runs).
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "echo.ferry.h"
#include "ferry/framework/cluster_channel.h"
#include "ferry/framework/registry.h"
#include "process.h"
#include "ready_process.h"
#include "zookeeper_server.h"

namespace ferry::app_test {
namespace {

using namespace std::chrono_literals;
using testsupport::ReadyProcess;

constexpr int kProviders = 3;
constexpr int kCallers = 8;

// One provider's config and the file it writes its executions to; kept across its restarts.
struct ProviderSlot {
  std::filesystem::path config;
  std::filesystem::path executions;
  uint16_t port = 0;
  ReadyProcess process;
};

// Closed-loop callers of Delay, each call with a call id of its own, until told to stop.
class Load {
 public:
  explicit Load(std::shared_ptr<Channel> channel) : proxy_(std::move(channel)) {
    for (int i = 0; i < kCallers; ++i) threads_.emplace_back([this] { Call(); });
  }
  ~Load() { Stop(); }

  void Stop() {
    stop_.store(true);
    for (auto& thread : threads_) {
      if (thread.joinable()) thread.join();
    }
  }
  // Waits (bounded) until `more` calls have succeeded after now.
  bool WaitForSuccesses(size_t more) {
    const size_t target = successes() + more;
    for (int i = 0; i < 2000 && successes() < target; ++i) std::this_thread::sleep_for(5ms);
    return successes() >= target;
  }
  size_t successes() {
    std::lock_guard lock(mu_);
    return succeeded_.size();
  }
  std::vector<uint64_t> succeeded() {
    std::lock_guard lock(mu_);
    return succeeded_;
  }
  std::vector<std::string> failures() {
    std::lock_guard lock(mu_);
    return failures_;
  }

 private:
  void Call() {
    // Bounded even if the test never says stop.
    for (int call = 0; call < 200000 && !stop_.load(); ++call) {
      const uint64_t id = next_id_.fetch_add(1);
      demo::DelayRequest request;
      request.set_sleep_ms(2);
      request.set_payload(std::to_string(id));
      CallOptions options;
      options.request_id = id;
      options.timeout = 10s;
      Result<demo::EchoResponse> reply = proxy_.Delay(request, options);
      std::lock_guard lock(mu_);
      if (reply.ok() && reply->payload() == request.payload()) {
        succeeded_.push_back(id);
      } else {
        failures_.push_back("call " + std::to_string(id) + ": " + reply.status().ToString());
      }
    }
  }

  demo::EchoServiceProxy proxy_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> next_id_{1};
  std::mutex mu_;
  std::vector<uint64_t> succeeded_;
  std::vector<std::string> failures_;
  std::vector<std::thread> threads_;
};

class RollingRestartTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testsupport::internal::MakeTempDir("ferry-rolling-");
    ASSERT_FALSE(dir_.empty());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // A port for each provider, kept across its restarts so that a restarted provider is found
  // at the same address.
  void PickPorts() {
    for (ProviderSlot& slot : slots_) slot.port = testsupport::internal::PickFreePort();
  }

  // Writes each provider's config: the registry, its port and its executions file.
  void WriteConfigs(const RegistryOptions& registry) {
    for (int i = 0; i < kProviders; ++i) {
      ProviderSlot& slot = slots_[i];
      slot.config = dir_ / ("provider-" + std::to_string(i) + ".yaml");
      slot.executions = dir_ / ("executions-" + std::to_string(i) + ".txt");
      std::ofstream(slot.config) << "log: {level: warn}\n"
                                 << "server:\n  listen: 127.0.0.1:" << slot.port << "\n"
                                 << "  drain_delay_ms: 300\n  grace_period_ms: 5000\n"
                                 << "  business_pool: {threads: 4, queue_capacity: 1024}\n"
                                 // Every call's one token must survive its resends.
                                 << "  filters: [{name: auth, secret: rolling}]\n"
                                 << "registry:\n  url: \"" << registry.url
                                 << "\"\n  namespace: " << registry.namespace_name
                                 << "\n  session_timeout_ms: 4000\n"
                                 << "service:\n  executions: " << slot.executions.string() << "\n";
    }
  }

  ::testing::AssertionResult StartProvider(int i) {
    return slots_[i].process.Start(
        {COUNTING_PROVIDER_BINARY, "--config", slots_[i].config.string()}, "counting-provider");
  }

  // Restarts every provider in turn, each only once the load has gone on without it and then
  // with it again.
  void RestartOneByOne(Load& load) {
    for (int i = 0; i < kProviders; ++i) {
      SCOPED_TRACE("provider " + std::to_string(i));
      ASSERT_EQ(slots_[i].process.Terminate(20s), 0) << "a graceful stop exits 0";
      ASSERT_TRUE(load.WaitForSuccesses(200));
      ASSERT_TRUE(StartProvider(i));
      ASSERT_TRUE(WaitUntilItServes(i));
      ASSERT_TRUE(load.WaitForSuccesses(200));
    }
  }

  // Bounded wait until the provider's executions file grows: it is back in rotation.
  bool WaitUntilItServes(int i) {
    const uint64_t before = testsupport::internal::FileSize(slots_[i].executions);
    for (int n = 0; n < 2000; ++n) {
      if (testsupport::internal::FileSize(slots_[i].executions) > before) return true;
      std::this_thread::sleep_for(5ms);
    }
    return false;
  }

  // How often each call id ran, over every provider's executions.
  std::map<uint64_t, int> Executions() {
    std::map<uint64_t, int> runs;
    for (const ProviderSlot& slot : slots_) {
      std::ifstream in(slot.executions);
      uint64_t id = 0;
      while (in >> id) ++runs[id];
    }
    return runs;
  }

  void RunAndCheck(const RegistryOptions& registry_options) {
    WriteConfigs(registry_options);
    for (int i = 0; i < kProviders; ++i) ASSERT_TRUE(StartProvider(i)) << "provider " << i;
    std::shared_ptr<Registry> registry;
    ASSERT_TRUE(OpenRegistry(registry_options, &registry).ok());
    ClusterOptions options;
    options.service = "ferry.demo.EchoService";
    options.client.connect_timeout = 5s;
    options.client.filters = {FilterSpec::FromYaml("auth", "{secret: rolling}")};
    std::shared_ptr<Channel> channel;
    ASSERT_TRUE(NewClusterChannel(options, registry, &channel).ok());
    Load load(channel);
    ASSERT_TRUE(load.WaitForSuccesses(200));
    RestartOneByOne(load);
    load.Stop();

    EXPECT_EQ(load.failures(), std::vector<std::string>{}) << "no call may fail";
    const std::vector<uint64_t> succeeded = load.succeeded();
    ASSERT_GT(succeeded.size(), 1000u);
    for (int i = 0; i < kProviders; ++i) slots_[i].process.Terminate(20s);
    const std::map<uint64_t, int> runs = Executions();
    for (uint64_t id : succeeded) {
      const auto it = runs.find(id);
      ASSERT_TRUE(it != runs.end()) << "call " << id << " succeeded but no provider ran it";
      ASSERT_EQ(it->second, 1) << "call " << id << " ran " << it->second << " times";
    }
    EXPECT_EQ(runs.size(), succeeded.size()) << "every call that ran was answered";
  }

  std::filesystem::path dir_;
  ProviderSlot slots_[kProviders];
};

TEST_F(RollingRestartTest, ThroughZooKeeperNoCallFailsAndNoneRunsTwice) {
  testsupport::ZooKeeperServer zookeeper;
  ASSERT_TRUE(zookeeper.Start());
  PickPorts();
  RunAndCheck(RegistryOptions{.url = zookeeper.url(), .namespace_name = "rolling"});
}

// With a static list nobody learns of the restart from a registry: the GOAWAY a draining
// provider sends is what keeps calls off it until its successor answers at the same address.
TEST_F(RollingRestartTest, ThroughAStaticListNoCallFailsAndNoneRunsTwice) {
  PickPorts();
  std::string url = "static://";
  for (int i = 0; i < kProviders; ++i) {
    url += (i == 0 ? "" : ",") + std::string("127.0.0.1:") + std::to_string(slots_[i].port);
  }
  RunAndCheck(RegistryOptions{.url = url, .namespace_name = "rolling"});
}

}  // namespace
}  // namespace ferry::app_test
